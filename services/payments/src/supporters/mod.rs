//! Supporters: donor records (SPEC.md, "Supporter").

pub mod domain;
pub mod routes;
pub mod search;
pub mod store;
