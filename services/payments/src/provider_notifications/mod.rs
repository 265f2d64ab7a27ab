//! What payment providers tell Coffer on their own: a charge decided after its call was
//! answered, or whose answer never arrived (docs/payments.md, "Provider notifications").
//! Each connector account has an endpoint; what a verified notification says is applied
//! like a direct answer, once per event.

pub mod commands;
pub mod domain;
pub mod routes;
pub mod store;
