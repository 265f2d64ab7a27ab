//! Why a payments transaction stopped (coffer-http's `Failure`).

pub(crate) use coffer_http::failure::{Failure, internal};
