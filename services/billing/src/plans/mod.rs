//! Subscription plans: how many retries a failed invoice gets, when a subscription gives
//! up, and which reminders are announced (docs/billing.md, "Subscription plans").

pub mod domain;
pub mod routes;
pub mod store;
