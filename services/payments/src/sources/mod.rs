//! Payment sources: instruments stored to be charged again (by billing, for recurring gifts).

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub mod routes;
pub mod store;
