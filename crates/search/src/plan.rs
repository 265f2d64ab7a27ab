//! The plan a search request becomes once every part is checked: the body read property
//! by property (read.rs), then its query, size, page, sort and aggregations checked
//! against the schema searched, every offending property named.

use coffer_model::validation::FieldError;
use serde_json::Value;

use crate::aggs::{self, Aggregation};
use crate::filter::{Field, Filter};
use crate::query::{self, MAX_ERRORS, Schema};
use crate::read;
use crate::request::{DEFAULT_SIZE, MAX_SIZE, MAX_WINDOW, SearchRequest};
use crate::sort::{Sort, sort};

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

impl Plan {
    /// Reads a search body and checks every part against `schema`, naming each offending
    /// property (at most [`MAX_ERRORS`]): a wrong type as much as a wrong value.
    pub fn read(schema: &Schema, body: Value) -> Result<Plan, Vec<FieldError>> {
        let mut errors = Vec::new();
        let request = read::request(body, &mut errors);
        let plan = Plan::check(schema, request);
        match plan {
            Ok(plan) if errors.is_empty() => Ok(plan),
            Ok(_) => Err(errors),
            Err(more) => {
                errors.extend(more);
                errors.truncate(MAX_ERRORS);
                Err(errors)
            }
        }
    }

    /// Checks every part of `request` against `schema`, naming each offending property
    /// (at most [`MAX_ERRORS`]).
    pub fn check(schema: &Schema, request: SearchRequest) -> Result<Plan, Vec<FieldError>> {
        let mut errors = Vec::new();
        let filter = match &request.query {
            None => {
                errors.push(FieldError::not_null("query"));
                None
            }
            Some(q) => query::check(schema, "query", q)
                .map_err(|e| errors.extend(e))
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
        let sort = sort(schema, request.sort.as_ref(), &mut errors);
        if let Some(after) = &request.search_after {
            search_after(&sort, after, &mut errors);
        }
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
            _ => {
                errors.truncate(MAX_ERRORS);
                Err(errors)
            }
        }
    }
}

/// `search_after` is `[sort value, uuid]` as `last_sort_values` gave it: the value one the
/// sort field compares with, or null for a hit without one.
fn search_after(sort: &Sort, after: &[Value], errors: &mut Vec<FieldError>) {
    let [value, uuid] = after else {
        errors.push(FieldError::not_valid(
            "search_after",
            "must be [sort value, uuid] from last_sort_values",
        ));
        return;
    };
    let field = Field::Column {
        name: sort.column,
        kind: sort.kind,
    };
    if let (false, Err(message)) = (value.is_null(), crate::sql::bind(&field, value)) {
        errors.push(FieldError::not_valid("search_after[0]", message));
    }
    if !uuid.is_string() {
        errors.push(FieldError::not_valid(
            "search_after[1]",
            "must be the uuid from last_sort_values",
        ));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::aggs::AggKind;
    use crate::query::tests::SCHEMA;
    use serde_json::json;

    fn check(body: Value) -> Result<Plan, Vec<String>> {
        let request: SearchRequest = serde_json::from_value(body).unwrap();
        Plan::check(&SCHEMA, request).map_err(|e| e.into_iter().map(|e| e.property).collect())
    }

    #[test]
    fn apteco_counting_query_is_taken() {
        // The count query of Apteco's RaiseNow plugin notes: string bounds, a range
        // aggregation with string ends and a key of its own, and sort as an object.
        let plan = check(json!({
            "query": {"$range": {"created": {"gt": "1700000000"}}},
            "aggs": {"maxtimestamp": {"type": "range", "field": "created",
                "ranges": [{"from": "1700000000"}], "stats": {"createdstats": "created"}}},
            "sort": {"uuid": "desc"}, "size": 0, "from": 0, "includes": [], "excludes": []
        }));
        // `uuid` is not in the test schema; `created` is.
        assert_eq!(plan.unwrap_err(), ["sort.uuid"]);
        let plan = check(json!({
            "query": {"$range": {"created": {"gt": "1700000000"}}},
            "aggs": {"maxtimestamp": {"type": "range", "field": "created", "ranges": [{"from": "1700000000"}]}},
            "sort": {"created": "desc"}, "size": 0
        }))
        .unwrap();
        assert_eq!(plan.aggs[0].kind, AggKind::Range);
        assert_eq!(plan.aggs[0].ranges[0].from, Some(1_700_000_000));
        assert!(plan.sort.descending);
    }

    #[test]
    fn every_offending_part_is_named_at_once() {
        let e = check(json!({
            "query": {"$match": {"status": "x"}},
            "aggs": {"a": {"type": "range", "field": "status", "ranges": [{"from": 1}]},
                     "b": {"type": "range", "field": "amount.value", "ranges": [{"from": "x"}, {"to": "y"}]}},
            "sort": {"status": "sideways"}
        }))
        .unwrap_err();
        assert_eq!(
            e,
            [
                "sort.status",
                "aggs.a.field",
                "aggs.b.ranges[0].from",
                "aggs.b.ranges[1].to"
            ]
        );
    }

    fn read(body: Value) -> Vec<String> {
        let mut named: Vec<String> = Plan::read(&SCHEMA, body)
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        named.sort_unstable();
        // A field that cannot be sorted by and a wrong direction share one property.
        named.dedup();
        named
    }

    #[test]
    fn a_body_of_wrong_types_is_named_part_by_part() {
        assert_eq!(
            read(
                json!({"query": {"$match": {"amount.value": "abc"}}, "size": "x", "from": -1, "sort": {"a": "b"}})
            ),
            ["from", "query.$match.amount.value", "size", "sort.a"]
        );
        assert_eq!(
            read(
                json!({"query": {"$match": {}}, "search_after": ["x", 5], "sort": {"amount.value": "asc"}})
            ),
            ["search_after[0]", "search_after[1]"]
        );
        assert_eq!(
            read(json!({"query": {"$match": {}}, "search_after": [null]})),
            ["search_after"]
        );
        let taken = Plan::read(
            &SCHEMA,
            json!({"query": {"$match": {}}, "search_after": [null, "u"], "sort": {"amount.value": "asc"}}),
        );
        assert!(taken.is_ok());
        let many: Vec<Value> = (0..MAX_ERRORS)
            .map(|_| json!({"$match": {"nope": 1}}))
            .collect();
        assert_eq!(
            read(json!({"query": {"$or": many}, "size": "x"})).len(),
            MAX_ERRORS
        );
    }
}
