//! Organisations: the tenants. Operators create them (`coffer admin`); the API lists,
//! searches and reads them.

pub(crate) mod cache;
pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub(crate) mod store;
pub(crate) mod views;
