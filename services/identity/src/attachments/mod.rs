//! Addresses and metadata, which organisations and accounts both carry, are set the same
//! way for either owner and read under the owner's tenancy.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub(crate) mod store;
pub(crate) mod views;
