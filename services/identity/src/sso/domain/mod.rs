//! The pure part of single sign-on: what an authorization request must hold, PKCE, the
//! page's language (when failed sign-ins are slowed down is crate::throttles::delays).

pub mod authorize;
pub mod locale;
pub mod pkce;
