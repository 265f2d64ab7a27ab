//! Payment sources: instruments stored to be charged again (by billing, for recurring gifts).

pub(crate) mod commands;
pub mod routes;
pub mod store;
