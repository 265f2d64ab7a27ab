//! Wire transfers the bank reports: reconciliation reads the credits that carry a
//! creditor reference (ISO 11649) or a QR reference and announces each; payments records
//! each as a succeeded `bank_transfer` payment, once (docs/reconciliation.md).

pub mod commands;
pub mod domain;
pub mod events;
