//! Organisations onboarded through a partner (the onboarding service executes a process
//! here): the organisation with its addresses, its accounts with their billing data, and
//! its first user, made together and safe to ask for again.

pub mod commands;
pub mod domain;
pub mod internal;
pub(crate) mod routes;
