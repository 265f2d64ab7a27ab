//! The search language every `POST /search/*` speaks (RaiseNow's, as Coffer serves it):
//! a query of operators over a schema's fields, sorting, `from`/`size` and `search_after`
//! paging, term, stats, date_histogram and range aggregations, and shaping of hits; bounds
//! on timestamps may be dates in a named `format`. Pure parsing
//! and SQL building, and one runner that binds every value; each service brings its
//! schema and renders its own hits.

pub mod aggs;
mod answer;
pub mod dates;
pub mod endpoint;
mod faults;
mod fetch;
mod filter;
pub mod histogram;
pub mod plan;
pub mod query;
pub mod range;
pub mod ranges;
mod read;
pub mod request;
pub mod rollup;
pub mod run;
pub mod shape;
pub mod sort;
pub mod sql;

pub use endpoint::{rendered, search};
pub use plan::Plan;
pub use query::{Field, Filter, Kind, Schema, custom_parameter};
pub use request::SearchRequest;
pub use run::{Found, Render, SearchError, Source, run};
