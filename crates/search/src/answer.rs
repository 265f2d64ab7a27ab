//! How aggregations answer, whether their counts came from rows or from roll-ups: term
//! buckets with keys of the field's type, and stats with money as strings of digits. Pure.

use serde_json::{Value, json};

use crate::filter::{Field, Kind};

/// Sums are taken in two parts, whole billions and the rest, each far from overflowing: a
/// tenant's rows at the largest amount would overflow one BIGINT sum within a million.
pub const SUM_SPLIT: i64 = 1_000_000_000;

/// A value read back as text, as its column's kind shows it.
pub fn typed(kind: Kind, text: Option<String>) -> Value {
    let Some(text) = text else { return Value::Null };
    match kind {
        Kind::Int => text.parse::<i64>().map_or(Value::String(text), Value::from),
        Kind::Bool => Value::Bool(text == "true" || text == "1" || text == "t"),
        Kind::Text => Value::String(text),
    }
}

/// One bucket of a term aggregation.
pub fn bucket(field: &Field, key: Option<String>, count: i64) -> Value {
    let key = match field {
        Field::Column { kind, .. } => typed(*kind, key),
        Field::Json { .. } => key.map_or(Value::Null, Value::String),
    };
    json!({ "key": key, "doc_count": count })
}

/// A stats aggregation's answer. The mean is in whole minor units, rounded half up:
/// money is never a float. Amounts are strings of digits on the wire, as Money's value
/// is; a sum may pass what a JSON number holds exactly.
pub fn stats(count: i64, min: Option<i64>, max: Option<i64>, sum: Option<i128>) -> Value {
    let n = i128::from(count);
    let avg = sum.filter(|_| n > 0).map(|sum| (2 * sum + n) / (2 * n));
    let digits = |v: Option<i128>| v.map(|v| v.to_string());
    json!({
        "count": count,
        "min": digits(min.map(i128::from)),
        "max": digits(max.map(i128::from)),
        "sum": digits(sum),
        "avg": digits(avg),
    })
}
