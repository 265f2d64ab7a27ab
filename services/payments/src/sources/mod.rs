//! Payment sources: instruments stored to be charged again (by billing, for recurring gifts).

pub mod billing_charges;
pub(crate) mod charge;
pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub mod routes;
pub mod store;
