//! The pure part of single sign-on: what an authorization request must hold, PKCE, the
//! page's language, and when failed sign-ins are slowed down.

pub mod authorize;
pub mod delays;
pub mod locale;
pub mod pkce;
