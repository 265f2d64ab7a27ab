//! Reconciliation's copy of payments' payouts (`payment_gateway.payout.created`): what a
//! statement's credits are matched with.

pub mod commands;
pub mod events;
pub mod store;
