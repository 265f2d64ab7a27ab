//! Direct debits the bank reports: reconciliation reads them from camt.054 notifications
//! and announces each; payments settles the pending collection it names, records one it
//! did not start, or fails one the bank gave back (docs/reconciliation.md).

pub mod commands;
pub mod domain;
pub mod events;
pub mod store;
