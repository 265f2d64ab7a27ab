//! Supporters: donor records (SPEC.md, "Supporter").

pub mod commands;
pub mod events;
pub mod routes;
pub mod search;
pub mod store;
