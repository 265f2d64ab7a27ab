//! A search request as sent: its properties, their bounds, and their description. Plain
//! types, below the reading of a body (read.rs) and the plan it becomes (plan.rs).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::sort::sort_schema;

/// SPEC.md: size defaults to 10 and may not exceed 10,000.
pub const DEFAULT_SIZE: i64 = 10;
pub const MAX_SIZE: i64 = 10_000;
/// The deepest offset `from` reaches; past it a client pages with `search_after`, which
/// costs the same on every page.
pub const MAX_WINDOW: i64 = 100_000;
pub use crate::sort::{MAX_SORT_ENTRIES, Sort, SortSpec};

/// A search: which objects (`query`), in what order, which page, and what to count.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SearchRequest {
    /// `$match`, `$term`, `$terms`, `$range`, `$exists`, combined with `$and`, `$or`, `$not`.
    #[schema(value_type = Object, required = true)]
    pub query: Option<Value>,
    /// `term`, `stats`, `date_histogram` and `range` aggregations, by a name of the caller's.
    #[schema(value_type = Option<Object>)]
    pub aggs: Option<Map<String, Value>>,
    /// A list of `{field, field_type, direction}` whose first entry orders the hits, or an
    /// object of one field to its direction (`{"uuid": "desc"}`, or Elasticsearch's
    /// `{"created": {"order": "asc"}}`); uuid breaks ties, hits without a value come last.
    /// Newest first by default.
    #[schema(schema_with = sort_schema)]
    pub sort: Option<Value>,
    /// Hits per page, 10 by default.
    #[schema(minimum = 0, maximum = 10_000)]
    pub size: Option<i64>,
    /// Hits to skip; past 100,000, page with `search_after`.
    #[schema(minimum = 0, maximum = 100_000)]
    pub from: Option<i64>,
    /// Only these fields of each hit (all when empty).
    pub includes: Option<Vec<String>>,
    /// Not these fields of each hit.
    pub excludes: Option<Vec<String>>,
    /// `last_sort_values` of the previous page, to page past `from`'s reach.
    #[schema(value_type = Option<Vec<serde_json::Value>>, min_items = 2, max_items = 2)]
    pub search_after: Option<Vec<Value>>,
}
