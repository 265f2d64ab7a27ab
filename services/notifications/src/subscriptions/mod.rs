//! Event subscriptions: which events go to which endpoint.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod routes;
pub mod store;
