//! The `aggs` of a search request, checked: what each aggregation counts and over which
//! field. Pure; routes.rs turns them into SQL.

use coffer_model::validation::FieldError;
use coffer_model::zone;
use serde_json::{Map, Value};

use crate::histogram::{Histogram, Interval};
use crate::query::{Field, Kind, Schema};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    /// The most frequent values and how often each occurs.
    Term { size: i64 },
    /// count, min, max, sum and avg of a numeric field.
    Stats,
    /// How many per local day, week or month.
    DateHistogram(Histogram),
}

#[derive(Debug, Clone)]
pub struct Aggregation {
    pub name: String,
    pub field: Field,
    pub kind: AggKind,
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

fn one(schema: &Schema, name: &str, spec: &Value) -> Result<Aggregation, FieldError> {
    let at = format!("aggs.{name}");
    let path = spec["field"].as_str().unwrap_or_default();
    let field = schema.field(path).ok_or_else(|| {
        FieldError::not_valid(
            format!("{at}.field"),
            format!("{path:?} is not a searchable field"),
        )
    })?;
    let kind = match spec["type"].as_str() {
        Some("term") => AggKind::Term {
            size: spec
                .get("size")
                .and_then(Value::as_i64)
                .unwrap_or(10)
                .clamp(1, 1000),
        },
        Some("stats") if numeric(&field) => AggKind::Stats,
        Some("stats") => {
            return Err(FieldError::not_valid(
                format!("{at}.field"),
                "stats need a numeric field",
            ));
        }
        Some("date_histogram") => {
            if path != "created" {
                return Err(FieldError::not_valid(
                    format!("{at}.field"),
                    "a date_histogram needs a timestamp field (created)",
                ));
            }
            let interval = spec["interval"]
                .as_str()
                .and_then(Interval::parse)
                .ok_or_else(|| {
                    FieldError::invalid_choice(
                        format!("{at}.interval"),
                        "must be day, week or month",
                    )
                })?;
            // Unlike a subscription's zone, a mistyped one here is an error: a silent
            // fallback to UTC would shift every bucket.
            let zone = match spec.get("time_zone") {
                None | Some(Value::Null) => zone::UTC,
                Some(name) => name.as_str().and_then(zone::parse).ok_or_else(|| {
                    FieldError::not_valid(
                        format!("{at}.time_zone"),
                        "is not an IANA time zone such as Europe/Zurich",
                    )
                })?,
            };
            AggKind::DateHistogram(Histogram { interval, zone })
        }
        _ => {
            return Err(FieldError::not_valid(
                format!("{at}.type"),
                "must be term, stats or date_histogram",
            ));
        }
    };
    Ok(Aggregation {
        name: name.to_owned(),
        field,
        kind,
    })
}

pub fn parse(
    schema: &Schema,
    aggs: Option<Map<String, Value>>,
) -> Result<Vec<Aggregation>, Vec<FieldError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (name, spec) in aggs.unwrap_or_default() {
        match one(schema, &name, &spec) {
            Ok(a) => out.push(a),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}
