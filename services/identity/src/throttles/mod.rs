//! The throttles identity keeps in memory, below every feature: failed client
//! authentications at the token endpoint (`failures.rs`, used by tokens/ and by sso/'s code
//! exchange) and failed sign-ins on the login page (`sign_ins.rs`, used by sso/ and
//! users/). The state holds one of each; `failure_window.rs` and `delays.rs` are their
//! pure rules.

pub mod delays;
pub mod failure_window;
pub mod failures;
pub mod sign_ins;
