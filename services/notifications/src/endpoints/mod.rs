//! Webhook endpoints: where an organisation's events are delivered.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub mod store;
