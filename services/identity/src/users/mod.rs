//! Users: the people who sign in to partners' applications through Coffer (sso/), each in
//! one organisation, with an e-mail address and a password.

pub mod commands;
pub mod domain;
pub(crate) mod password;
pub(crate) mod store;

pub use domain::UserInput;
