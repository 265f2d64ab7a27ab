//! Subscription plans: how many retries a failed invoice gets, when a subscription gives
//! up, and which reminders are announced (docs/billing.md, "Subscription plans").

pub(crate) mod commands;
pub mod domain;
mod events;
pub(crate) mod routes;
pub mod store;
