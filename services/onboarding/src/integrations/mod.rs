//! Partner integrations: a partner's access to an organisation, made when a process
//! completes and ended by a disable. Every service keeps a copy from their events
//! (crates/partners) and lets a partner's token reach exactly the organisations with an
//! enabled one.

pub(crate) mod commands;
pub(crate) mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub(crate) mod store;
