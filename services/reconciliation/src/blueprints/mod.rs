//! Blueprints: what a bank file must hold (message type, versions, account IBANs) and how
//! it is processed.

pub mod commands;
pub mod domain;
pub mod routes;
pub mod store;
