//! The `aggs` of a search request, checked: what each aggregation counts and over which
//! field. Pure; routes.rs turns them into SQL.

use coffer_model::validation::FieldError;
use coffer_model::zone;
use serde_json::{Map, Value};

use crate::histogram::{Histogram, Interval};
use crate::query::{Field, Kind, Schema};
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

fn one(schema: &Schema, name: &str, spec: &Value) -> Result<Aggregation, Vec<FieldError>> {
    let at = format!("aggs.{name}");
    let path = spec["field"].as_str().unwrap_or_default();
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
            size: spec
                .get("size")
                .and_then(Value::as_i64)
                .unwrap_or(10)
                .clamp(1, 1000),
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

/// Every part read, or every fault of every part.
pub(crate) fn gathered<T>(
    parts: impl Iterator<Item = Result<T, Vec<FieldError>>>,
) -> Result<Vec<T>, Vec<FieldError>> {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for part in parts {
        match part {
            Ok(p) => read.push(p),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(read)
    } else {
        Err(errors)
    }
}
