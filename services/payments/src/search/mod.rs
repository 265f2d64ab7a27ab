//! `POST /search/payments`: the search language (crates/search) over payments, with
//! kept counts for the searches that only count and roll-ups per day for those that
//! count, sum or draw a histogram over time (docs/payments.md lists operators and fields).

pub mod counts;
pub mod folding;
pub mod parameters;
pub mod rollups;
pub mod routes;
pub mod schema;
