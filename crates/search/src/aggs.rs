//! The `aggs` of a search request, checked: what each aggregation counts and over which
//! field. Pure; routes.rs turns them into SQL.

use coffer_model::validation::FieldError;
use coffer_model::zone;
use serde_json::{Map, Value};

use crate::faults::gathered;
use crate::filter::{Field, Kind};
use crate::histogram::{Histogram, Interval};
use crate::query::Schema;
use crate::ranges::{self, Bucket};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    /// The most frequent values and how often each occurs.
    Term { size: i64 },
    /// count, min, max, sum and avg of a numeric field.
    Stats,
    /// How many per local day, week or month.
    DateHistogram(Histogram),
    /// How many in each of the caller's ranges of a numeric field ([`Aggregation::ranges`]).
    Range,
}

#[derive(Debug, Clone)]
pub struct Aggregation {
    pub name: String,
    pub field: Field,
    pub kind: AggKind,
    /// The ranges of a `range` aggregation; empty for every other kind.
    pub ranges: Vec<Bucket>,
}

fn numeric(field: &Field) -> bool {
    matches!(
        field,
        Field::Column {
            kind: Kind::Int,
            ..
        }
    )
}

/// The kinds of aggregation, as `type` names them.
const TYPES: [&str; 4] = ["term", "stats", "date_histogram", "range"];

/// The most buckets a term aggregation answers.
pub const MAX_TERMS: i64 = 1000;

fn one(schema: &Schema, name: &str, spec: &Value) -> Result<Aggregation, Vec<FieldError>> {
    let at = format!("aggs.{name}");
    if !spec.is_object() {
        return Err(vec![FieldError::not_valid(
            &at,
            "must be an object of type, field and the type's options",
        )]);
    }
    // What the aggregation is decides what else it needs, so it is named first.
    if !spec["type"].as_str().is_some_and(|t| TYPES.contains(&t)) {
        return Err(vec![FieldError::invalid_choice(
            format!("{at}.type"),
            "must be term, stats, date_histogram or range",
        )]);
    }
    let Some(path) = spec["field"].as_str() else {
        return Err(vec![FieldError::not_null(format!("{at}.field"))]);
    };
    let field = schema.field(path).ok_or_else(|| {
        vec![FieldError::not_valid(
            format!("{at}.field"),
            format!("{path:?} is not a searchable field"),
        )]
    })?;
    let mut ranges = Vec::new();
    let kind = kind(&at, path, &field, spec, &mut ranges)?;
    Ok(Aggregation {
        name: name.to_owned(),
        field,
        kind,
        ranges,
    })
}

/// A term aggregation's `size`: 10 unless given, else a whole number up to [`MAX_TERMS`].
fn term_size(at: &str, spec: &Value) -> Result<i64, Vec<FieldError>> {
    match spec.get("size") {
        None | Some(Value::Null) => Ok(10),
        Some(size) => crate::dates::whole(size)
            .filter(|n| (1..=MAX_TERMS).contains(n))
            .ok_or_else(|| {
                vec![FieldError::not_valid(
                    format!("{at}.size"),
                    format!("must be a whole number between 1 and {MAX_TERMS}"),
                )]
            }),
    }
}

/// What `spec` counts; a `range` aggregation's ranges go into `ranges`.
fn kind(
    at: &str,
    path: &str,
    field: &Field,
    spec: &Value,
    ranges: &mut Vec<Bucket>,
) -> Result<AggKind, Vec<FieldError>> {
    Ok(match spec["type"].as_str() {
        Some("term") => AggKind::Term {
            size: term_size(at, spec)?,
        },
        Some("stats") if numeric(field) => AggKind::Stats,
        Some("stats") => {
            return Err(vec![FieldError::not_valid(
                format!("{at}.field"),
                "stats need a numeric field",
            )]);
        }
        Some("range") if numeric(field) => {
            *ranges = ranges::parse(at, spec)?;
            AggKind::Range
        }
        Some("range") => {
            return Err(vec![FieldError::not_valid(
                format!("{at}.field"),
                "a range aggregation needs a numeric field",
            )]);
        }
        Some("date_histogram") => {
            if path != "created" {
                return Err(vec![FieldError::not_valid(
                    format!("{at}.field"),
                    "a date_histogram needs a timestamp field (created)",
                )]);
            }
            let interval = spec["interval"]
                .as_str()
                .and_then(Interval::parse)
                .ok_or_else(|| {
                    vec![FieldError::invalid_choice(
                        format!("{at}.interval"),
                        "must be day, week or month",
                    )]
                })?;
            // Unlike a subscription's zone, a mistyped one here is an error: a silent
            // fallback to UTC would shift every bucket.
            let zone = match spec.get("time_zone") {
                None | Some(Value::Null) => zone::UTC,
                Some(name) => name.as_str().and_then(zone::parse).ok_or_else(|| {
                    vec![FieldError::not_valid(
                        format!("{at}.time_zone"),
                        "is not an IANA time zone such as Europe/Zurich",
                    )]
                })?,
            };
            AggKind::DateHistogram(Histogram { interval, zone })
        }
        _ => {
            return Err(vec![FieldError::not_valid(
                format!("{at}.type"),
                "must be term, stats, date_histogram or range",
            )]);
        }
    })
}

pub fn parse(
    schema: &Schema,
    aggs: Option<Map<String, Value>>,
) -> Result<Vec<Aggregation>, Vec<FieldError>> {
    gathered(
        aggs.unwrap_or_default()
            .iter()
            .map(|(name, spec)| one(schema, name, spec)),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::query::tests::SCHEMA;
    use serde_json::json;

    fn faults(aggs: Value) -> Vec<String> {
        let aggs = aggs.as_object().cloned();
        parse(&SCHEMA, aggs)
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect()
    }

    #[test]
    fn what_an_aggregation_is_is_named_before_what_it_needs() {
        assert_eq!(faults(json!({"x": "y"})), ["aggs.x"]);
        assert_eq!(faults(json!({"x": {"field": "status"}})), ["aggs.x.type"]);
        assert_eq!(faults(json!({"x": {"type": "mean"}})), ["aggs.x.type"]);
        assert_eq!(faults(json!({"x": {"type": "term"}})), ["aggs.x.field"]);
    }

    #[test]
    fn a_term_size_is_a_whole_number_within_its_bound() {
        for size in [json!("abc"), json!(0), json!(1001), json!(2.5), json!(-1)] {
            let sized = json!({"x": {"type": "term", "field": "status", "size": size}});
            assert_eq!(faults(sized), ["aggs.x.size"], "{size}");
        }
        for (size, read) in [(json!(null), 10), (json!(1000), 1000), (json!("5"), 5)] {
            let sized = json!({"x": {"type": "term", "field": "status", "size": size}});
            let aggs = parse(&SCHEMA, sized.as_object().cloned()).unwrap();
            assert_eq!(aggs[0].kind, AggKind::Term { size: read });
        }
    }
}
