//! Invoices and charge attempts: what a subscription owes for a charge date, and each try
//! to collect it (docs/billing.md, "Invoices, charge attempts and dunning").

pub mod charging;
pub mod dunning;
pub mod record;
pub mod results;
pub mod routes;
pub mod store;
