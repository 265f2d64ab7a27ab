//! Onboarding configurations: what a partner's onboarding makes. Operators create them
//! (`coffer admin onboarding-configuration create`); partners name them in a process.

pub mod commands;
pub mod domain;
pub(crate) mod store;

pub use domain::{Configuration, ConfigurationInput};
