//! The `range` aggregation: how many hits fall in each of the caller's ranges of a numeric
//! field, `{"type": "range", "field": "amount.value", "ranges": [{"from": 0, "to": 1000},
//! {"from": 1000}]}`, answered as Elasticsearch (behind RaiseNow's search) answers it:
//! `[{key, from, to, doc_count}]`, in the order asked. `from` counts in, `to` out. Pure.

use coffer_model::validation::FieldError;
use serde_json::{Value, json};

use crate::dates::{self, Reading};
use crate::faults::gathered;

/// The most ranges one aggregation may count, and the longest `key` one may carry.
pub const MAX_RANGES: usize = 100;
pub const MAX_KEY_CHARS: usize = 100;

/// One range, as whole numbers: `from <= value < to`, either end open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    pub key: String,
    pub from: Option<i64>,
    pub to: Option<i64>,
}

impl Bucket {
    /// The answer for this range, with `doc_count` hits in it.
    pub fn answer(&self, doc_count: i64) -> Value {
        let mut answer = json!({"key": self.key});
        if let Some(from) = self.from {
            answer["from"] = from.into();
        }
        if let Some(to) = self.to {
            answer["to"] = to.into();
        }
        answer["doc_count"] = doc_count.into();
        answer
    }
}

/// The ranges of the aggregation `spec` at property `at` (`aggs.<name>`), every offending
/// property named.
pub fn parse(at: &str, spec: &Value) -> Result<Vec<Bucket>, Vec<FieldError>> {
    let reading =
        Reading::new(spec.get("format"), spec.get("time_zone")).map_err(|(which, message)| {
            let name = which.key();
            vec![FieldError::not_valid(format!("{at}.{name}"), message)]
        })?;
    let ranges = spec
        .get("ranges")
        .and_then(Value::as_array)
        .filter(|r| (1..=MAX_RANGES).contains(&r.len()))
        .ok_or_else(|| {
            vec![FieldError::not_valid(
                format!("{at}.ranges"),
                format!("must be an array of 1 to {MAX_RANGES} objects of from and to"),
            )]
        })?;
    gathered(
        ranges
            .iter()
            .enumerate()
            .map(|(i, range)| one(&format!("{at}.ranges[{i}]"), range, reading.as_ref())),
    )
}

fn one(here: &str, range: &Value, reading: Option<&Reading>) -> Result<Bucket, Vec<FieldError>> {
    let Some(range) = range.as_object() else {
        return Err(vec![FieldError::not_valid(
            here,
            "must be an object of from and to",
        )]);
    };
    let mut errors = Vec::new();
    let mut end = |name: &str, op: &'static str| -> Option<i64> {
        let value = range.get(name).filter(|v| !v.is_null())?;
        let read = match reading {
            Some(reading) => reading.bound(op, value).map(|(op, v)| half_open(op, v)),
            None => dates::whole(value).map(Some).ok_or_else(|| {
                "must be a whole number or a string of digits (a date needs format, such as yyyy-MM-dd)"
                    .to_owned()
            }),
        };
        match read {
            Ok(Some(v)) => Some(v),
            Ok(None) => {
                errors.push(FieldError::not_valid(
                    format!("{here}.{name}"),
                    "is out of range",
                ));
                None
            }
            Err(message) => {
                errors.push(FieldError::not_valid(format!("{here}.{name}"), message));
                None
            }
        }
    };
    let from = end("from", ">=");
    let to = end("to", "<");
    let key = match range.get("key") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) if k.chars().count() <= MAX_KEY_CHARS => Some(k.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                format!("{here}.key"),
                format!("must be a string of at most {MAX_KEY_CHARS} characters"),
            ));
            None
        }
    };
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        errors.push(FieldError::not_valid(here, "from must not be above to"));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let written = |v: Option<i64>| v.map_or_else(|| "*".to_owned(), |v| v.to_string());
    Ok(Bucket {
        key: key.unwrap_or_else(|| format!("{}-{}", written(from), written(to))),
        from,
        to,
    })
}

/// A bound read from a date or milliseconds, as the first whole number in (from) or out
/// (to) of the range: `> v` is `>= v + 1` and `<= v` is `< v + 1` on whole numbers.
fn half_open(op: &'static str, v: i64) -> Option<i64> {
    match op {
        ">" | "<=" => v.checked_add(1),
        _ => Some(v),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn properties(e: Vec<FieldError>) -> Vec<String> {
        e.into_iter().map(|e| e.property).collect()
    }

    #[test]
    fn ranges_read_numbers_digits_and_dates_with_keys() {
        let b = parse("aggs.a", &json!({"ranges": [{"from": 0, "to": "1000"}, {"from": 1000}, {"to": 5, "key": "small"}]})).unwrap();
        assert_eq!(
            b[0],
            Bucket {
                key: "0-1000".into(),
                from: Some(0),
                to: Some(1000)
            }
        );
        assert_eq!(b[1].key, "1000-*");
        assert_eq!(b[2].key, "small");
        assert_eq!(
            b[1].answer(3),
            json!({"key": "1000-*", "from": 1000, "doc_count": 3})
        );
        let days = parse("aggs.a", &json!({"format": "yyyy-MM-dd", "ranges": [{"from": "2024-01-01", "to": "2024-01-02"}]})).unwrap();
        assert_eq!(
            (days[0].from, days[0].to),
            (Some(1_704_067_200), Some(1_704_153_600))
        );
        let ms = parse(
            "aggs.a",
            &json!({"format": "epoch_millis", "ranges": [{"from": 1500, "to": 2500}]}),
        )
        .unwrap();
        assert_eq!((ms[0].from, ms[0].to), (Some(2), Some(3)));
    }

    #[test]
    fn each_bad_range_is_named_and_the_count_is_bounded() {
        let e = parse(
            "aggs.a",
            &json!({"ranges": [{"from": "x"}, {"from": 5, "to": 1}, {"key": 7}, 3]}),
        )
        .unwrap_err();
        assert_eq!(
            properties(e),
            [
                "aggs.a.ranges[0].from",
                "aggs.a.ranges[1]",
                "aggs.a.ranges[2].key",
                "aggs.a.ranges[3]"
            ]
        );
        let many: Vec<Value> = (0..=MAX_RANGES).map(|i| json!({"from": i})).collect();
        assert_eq!(
            properties(parse("aggs.a", &json!({ "ranges": many })).unwrap_err()),
            ["aggs.a.ranges"]
        );
        assert_eq!(
            properties(parse("aggs.a", &json!({"ranges": []})).unwrap_err()),
            ["aggs.a.ranges"]
        );
        assert_eq!(
            properties(
                parse("aggs.a", &json!({"format": "dd.MM.yyyy", "ranges": [{}]})).unwrap_err()
            ),
            ["aggs.a.format"]
        );
    }
}
