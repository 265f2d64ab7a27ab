//! `POST /search/payments`: a query language over payments, turned into SQL for either
//! database (docs/payments.md lists operators and fields).

pub mod aggs;
pub mod counts;
pub mod histogram;
pub mod query;
pub mod routes;
pub mod sql;
