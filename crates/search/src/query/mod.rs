//! The search request, parsed into a filter tree over known fields; pure, no SQL. Every
//! fault is named where it appears (`query.$and[1].$match.amount`), all of them at once.

mod clause;

use coffer_model::validation::FieldError;
use serde_json::Value;

pub use crate::filter::{Field, Filter, Kind};

/// One searchable kind of object: its table, and the fields a query may name there.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// The table as written in SQL; it has `uuid`, `organisation_uuid` and `created`.
    pub table: &'static str,
    /// The field a dotted path names, if it is searchable.
    pub field: fn(&str) -> Option<Field>,
    /// Columns besides those three that are never NULL: hits sorted by one are ordered
    /// plainly, so that an index on it gives the order.
    pub never_empty: &'static [&'static str],
}

impl Schema {
    pub fn field(&self, path: &str) -> Option<Field> {
        (self.field)(path)
    }
}

/// `custom_parameters.<key>`, which every object with custom parameters can search.
pub fn custom_parameter(path: &str) -> Option<Field> {
    let key = path.strip_prefix("custom_parameters.")?;
    // The key is written into SQL as a JSON path, so only plain names pass.
    let plain = !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    plain.then(|| Field::Json {
        column: "custom_parameters",
        key: key.to_owned(),
    })
}

/// The most conditions one query may hold, and the deepest it may nest operators. A
/// condition becomes a bound parameter and an expression in SQL, and the databases stop
/// at an expression depth of 1,000; these bounds keep every query far inside that.
pub const MAX_CONDITIONS: usize = 200;
pub const MAX_DEPTH: usize = 12;

/// A filter's size and depth, measured against the bounds above.
impl Filter {
    fn conditions(&self) -> usize {
        match self {
            Filter::Match(..) | Filter::Range(..) | Filter::Exists(_) => 1,
            Filter::And(parts) | Filter::Or(parts) => parts.iter().map(Filter::conditions).sum(),
            Filter::Not(inner) => inner.conditions(),
        }
    }

    fn depth(&self) -> usize {
        match self {
            Filter::Match(..) | Filter::Range(..) | Filter::Exists(_) => 1,
            Filter::And(parts) | Filter::Or(parts) => {
                1 + parts.iter().map(Filter::depth).max().unwrap_or(0)
            }
            Filter::Not(inner) => 1 + inner.depth(),
        }
    }
}

/// The most faults one answer names: enough to fix a request by, and a huge bad query
/// cannot make a huge answer.
pub const MAX_ERRORS: usize = 100;

/// Parses `query` (at `property`) into a filter within [`MAX_CONDITIONS`] and
/// [`MAX_DEPTH`], or names every fault (up to [`MAX_ERRORS`]).
pub fn check(schema: &Schema, property: &str, query: &Value) -> Result<Filter, Vec<FieldError>> {
    // A query nested past the bound is refused before it is walked.
    if nesting(query) > 4 * MAX_DEPTH {
        return Err(vec![too_deep(property)]);
    }
    let mut errors = Vec::new();
    let filter = clause::parse(schema, property, query, &mut errors);
    if !errors.is_empty() {
        errors.truncate(MAX_ERRORS);
        return Err(errors);
    }
    if filter.conditions() > MAX_CONDITIONS {
        return Err(vec![FieldError::not_valid(
            property,
            format!("must hold at most {MAX_CONDITIONS} conditions"),
        )]);
    }
    if filter.depth() > MAX_DEPTH {
        return Err(vec![too_deep(property)]);
    }
    Ok(filter)
}

/// [`check`], answering only the first fault: for callers that report one.
pub fn parse(schema: &Schema, property: &str, query: &Value) -> Result<Filter, FieldError> {
    check(schema, property, query).map_err(|errors| {
        errors
            .into_iter()
            .next()
            .unwrap_or_else(|| FieldError::not_valid(property, "is not a query"))
    })
}

fn too_deep(property: &str) -> FieldError {
    FieldError::not_valid(
        property,
        format!("must nest operators at most {MAX_DEPTH} levels deep"),
    )
}

/// How deep a JSON value nests.
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
pub(crate) mod tests;
