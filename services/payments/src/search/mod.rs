//! `POST /search/payments`: the search language (crates/search) over payments, with
//! kept counts for the searches that only count (docs/payments.md lists operators and
//! fields).

pub mod counts;
pub mod routes;
pub mod schema;
