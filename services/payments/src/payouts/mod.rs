//! Payouts: the test provider's daily transfer to an account's bank, for its succeeded
//! card, TWINT and PayPal payments less fees and refunds (docs/payments.md, "Payouts").
//! Reconciliation matches a payout with the bank statement's credit, and payments then
//! marks it matched and dates its payments.

pub mod commands;
pub mod domain;
pub mod events;
pub mod record;
pub mod routes;
pub mod store;
