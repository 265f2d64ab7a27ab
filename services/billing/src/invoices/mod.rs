//! Invoices and charge attempts: what a subscription owes for a charge date, and each try
//! to collect it (docs/billing.md, "Invoices, charge attempts and dunning").

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub mod store;
