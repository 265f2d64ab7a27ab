//! Payments: initialise, read (and, to come, cancel, refund, search).

pub mod commands;
pub mod domain;
pub mod events;
pub mod routes;
pub mod store;
