//! Subscriptions: a supporter's recurring gift, charged to a payment source on a schedule
//! (docs/billing.md, "Subscriptions").

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub mod search;
pub mod store;
