//! Reports: what reading one bank file did, written in the transaction that did it.

pub mod commands;
pub mod domain;
pub mod record;
pub mod routes;
pub mod store;
