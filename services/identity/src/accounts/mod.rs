//! Accounts, each in one organisation, and their billing data. Operators create and set
//! them (`coffer admin`); the API reads them.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub(crate) mod store;
pub(crate) mod views;
