//! Supporters: donor records (SPEC.md, "Supporter").

pub mod commands;
pub mod domain;
pub mod events;
pub mod request;
pub mod routes;
pub mod search;
pub mod store;
