//! Partner onboarding processes (SPEC.md "Partner onboarding process"): a partner starts
//! one for an organisation it brings, the organisation's person opens it by its token and
//! executes it (a new organisation) or connects it (their existing one).

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod routes;
pub(crate) mod store;
pub mod views;
