//! The one error type every Coffer route returns, and how it is written on the wire.
//!
//! SPEC.md knows three error body shapes (A, B and C). Which one an operation speaks is a
//! property of the route, not of the error, so an [`ApiError`] carries only the facts
//! (status, code, message, offending properties) and is rendered in the route's [`Shape`]
//! by the error-shaping middleware of `coffer-http`, which also knows the request id.

mod api_error;
mod common;
mod render;
mod shape;

pub use api_error::{ApiError, codes};
pub use coffer_model::validation::FieldError;
pub use common::CommonError;
pub use shape::Shape;

// For service_error!, which names these types from the services' crates.
#[doc(hidden)]
pub use coffer_store as __store;
#[doc(hidden)]
pub use diesel as __diesel;
