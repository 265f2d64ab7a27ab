//! Subscriptions: a supporter's recurring gift, charged to a payment source on a schedule
//! (docs/billing.md, "Subscriptions").

pub mod commands;
pub mod from_payment;
pub mod record;
pub mod request;
pub mod routes;
pub mod search;
pub mod state;
pub mod store;
