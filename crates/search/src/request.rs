//! A search request as sent, and the plan it becomes once every part is checked.

use coffer_model::validation::FieldError;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::aggs::{self, Aggregation};
use crate::query::{self, Field, Filter, Kind, Schema};

/// SPEC.md: size defaults to 10 and may not exceed 10,000.
pub const DEFAULT_SIZE: i64 = 10;
pub const MAX_SIZE: i64 = 10_000;
/// The deepest offset `from` reaches; past it a client pages with `search_after`, which
/// costs the same on every page.
pub const MAX_WINDOW: i64 = 100_000;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SortSpec {
    /// A field of the objects searched, as the query names it.
    pub field: String,
    /// Sent by RaiseNow's clients; the field's own kind decides.
    #[allow(dead_code)]
    pub field_type: Option<String>,
    /// `asc` or `desc` (the default).
    pub direction: Option<String>,
}

/// A search: which objects (`query`), in what order, which page, and what to count.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SearchRequest {
    /// `$match`, `$term`, `$terms`, `$range`, `$exists`, combined with `$and`, `$or`, `$not`.
    #[schema(value_type = Object, required = true)]
    pub query: Option<Value>,
    /// `terms`, `stats` and `date_histogram` aggregations, by a name of the caller's.
    #[schema(value_type = Option<Object>)]
    pub aggs: Option<Map<String, Value>>,
    /// The first entry orders the hits; uuid breaks ties. Newest first by default.
    pub sort: Option<Vec<SortSpec>>,
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

/// The order of hits: a column, then uuid to break ties.
#[derive(Debug, Clone)]
pub struct Sort {
    pub column: &'static str,
    pub kind: Kind,
    pub descending: bool,
}

/// A request whose every part is known to be sound.
#[derive(Debug, Clone)]
pub struct Plan {
    pub filter: Filter,
    pub size: i64,
    pub from: i64,
    pub sort: Sort,
    pub aggs: Vec<Aggregation>,
    pub includes: Option<Vec<String>>,
    pub excludes: Option<Vec<String>>,
    pub search_after: Option<Vec<Value>>,
}

fn sort(schema: &Schema, specs: Option<Vec<SortSpec>>, errors: &mut Vec<FieldError>) -> Sort {
    let newest = Sort {
        column: "created",
        kind: Kind::Int,
        descending: true,
    };
    let Some(spec) = specs.unwrap_or_default().into_iter().next() else {
        return newest;
    };
    let descending = match spec.direction.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => {
            errors.push(FieldError::invalid_choice(
                "sort[0].direction",
                "must be asc or desc",
            ));
            true
        }
    };
    match schema.field(&spec.field) {
        Some(Field::Column { name, kind }) => Sort {
            column: name,
            kind,
            descending,
        },
        _ => {
            errors.push(FieldError::not_valid(
                "sort[0].field",
                format!("cannot sort by {:?}", spec.field),
            ));
            Sort {
                descending,
                ..newest
            }
        }
    }
}

impl Plan {
    /// Checks every part of `request` against `schema`, naming each offending property.
    pub fn check(schema: &Schema, request: SearchRequest) -> Result<Plan, Vec<FieldError>> {
        let mut errors = Vec::new();
        let filter = match &request.query {
            None => {
                errors.push(FieldError::not_null("query"));
                None
            }
            Some(q) => query::parse(schema, "query", q)
                .map_err(|e| errors.push(e))
                .ok(),
        };
        let size = request.size.unwrap_or(DEFAULT_SIZE);
        if !(0..=MAX_SIZE).contains(&size) {
            errors.push(FieldError::not_valid(
                "size",
                format!("must be between 0 and {MAX_SIZE}"),
            ));
        }
        let from = request.from.unwrap_or(0);
        if !(0..=MAX_WINDOW).contains(&from) {
            errors.push(FieldError::not_valid(
                "from",
                format!("must be between 0 and {MAX_WINDOW}; page further with search_after"),
            ));
        }
        if request.search_after.as_ref().is_some_and(|a| a.len() != 2) {
            errors.push(FieldError::not_valid(
                "search_after",
                "must be [sort value, uuid] from last_sort_values",
            ));
        }
        let sort = sort(schema, request.sort, &mut errors);
        let aggs = aggs::parse(schema, request.aggs).unwrap_or_else(|e| {
            errors.extend(e);
            Vec::new()
        });
        match filter {
            Some(filter) if errors.is_empty() => Ok(Plan {
                filter,
                size,
                from,
                sort,
                aggs,
                // An empty `includes` asks for every field, as RaiseNow documents it.
                includes: request.includes.filter(|paths| !paths.is_empty()),
                excludes: request.excludes,
                search_after: request.search_after,
            }),
            _ => Err(errors),
        }
    }
}
