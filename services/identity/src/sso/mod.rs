//! Single sign-on for partners' users: identity as an OpenID Connect provider
//! (authorization-code flow, SPEC.md "Single sign-on"; docs/partners.md). The login page
//! is Coffer's own; the token endpoint (tokens/) hands codes to [`commands::exchange`].

pub(crate) mod commands;
pub(crate) mod discovery;
pub mod domain;
pub(crate) mod form_token;
pub(crate) mod id_token;
pub(crate) mod page;
pub(crate) mod routes;
pub(crate) mod store;
pub(crate) mod texts;

pub use crate::state::SsoSettings;
pub use crate::throttles::sign_ins::SignInThrottleSettings;
