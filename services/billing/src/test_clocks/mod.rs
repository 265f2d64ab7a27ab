//! Test clocks: time that moves only when a caller advances it, for test-mode
//! subscriptions, so a year of giving plays out in seconds through the real scheduler and
//! the real payments service (docs/billing.md, "Test clocks").

pub(crate) mod commands;
pub mod domain;
mod events;
pub(crate) mod routes;
pub mod store;
