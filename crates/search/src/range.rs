//! `$range`: each field to its bounds (`gt`, `gte`, `lt`, `lte`), with RaiseNow's `format`
//! and `time_zone` for bounds written as dates. Bounds on a numeric field are checked here,
//! where the property that holds them is known, and become whole numbers; pure.

use coffer_model::validation::FieldError;
use serde_json::{Map, Value};

use crate::dates::{self, Reading};
use crate::filter::{Field, Filter, Kind};

/// The operator a bound's name stands for.
pub fn operator(name: &str) -> Option<&'static str> {
    Some(match name {
        "gt" => ">",
        "gte" => ">=",
        "lt" => "<",
        "lte" => "<=",
        _ => return None,
    })
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

/// The bounds of `field` (at property `here`) as a range filter, or every bound's fault.
pub fn bounds(
    field: Field,
    here: &str,
    bounds: &Map<String, Value>,
) -> Result<Filter, Vec<FieldError>> {
    let reading = Reading::new(bounds.get("format"), bounds.get("time_zone")).map_err(
        |(which, message)| {
            let name = which.key();
            vec![FieldError::not_valid(format!("{here}.{name}"), message)]
        },
    )?;
    if reading.is_some() && !numeric(&field) {
        return Err(vec![FieldError::not_valid(
            format!("{here}.format"),
            "applies to timestamp fields such as created",
        )]);
    }
    let mut ops = Vec::new();
    let mut errors = Vec::new();
    for (name, value) in bounds {
        if name == "format" || name == "time_zone" {
            continue;
        }
        let at = format!("{here}.{name}");
        match bound(&field, reading.as_ref(), name, value) {
            Ok(bound) => ops.push(bound),
            Err(message) => errors.push(FieldError::not_valid(&at, message)),
        }
    }
    if errors.is_empty() {
        Ok(Filter::Range(field, ops))
    } else {
        Err(errors)
    }
}

/// One bound, `name: value`, as an operator and the value it compares with.
fn bound(
    field: &Field,
    reading: Option<&Reading>,
    name: &str,
    value: &Value,
) -> Result<(&'static str, Value), String> {
    let op = operator(name).ok_or("is not gt, gte, lt, lte, format or time_zone")?;
    Ok(match reading {
        Some(reading) => {
            let (op, seconds) = reading.bound(op, value)?;
            (op, Value::from(seconds))
        }
        None if numeric(field) => {
            let n = dates::whole(value).ok_or(
                "must be a whole number or a string of digits (a date needs format, such as yyyy-MM-dd)",
            )?;
            (op, Value::from(n))
        }
        None => {
            crate::sql::bind(field, value)?;
            (op, value.clone())
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::filter::{Field, Filter, Kind};
    use crate::query::parse;
    use crate::query::tests::SCHEMA;
    use serde_json::{Value, json};

    fn bounds(query: Value) -> Vec<(&'static str, Value)> {
        match parse(&SCHEMA, "query", &query).unwrap() {
            Filter::And(mut all) if all.len() == 1 => match all.remove(0) {
                Filter::Range(_, ops) => ops,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    fn refused(query: Value) -> String {
        parse(&SCHEMA, "query", &query).unwrap_err().property
    }

    #[test]
    fn numeric_bounds_as_digit_strings_are_numbers() {
        assert_eq!(
            bounds(json!({"$range": {"created": {"gt": "1700000000"}}})),
            [(">", json!(1_700_000_000))]
        );
        assert_eq!(
            bounds(json!({"$range": {"created": {"gt": 0}}})),
            [(">", json!(0))]
        );
        assert_eq!(
            refused(json!({"$range": {"amount.value": {"gte": "ten"}}})),
            "query.$range.amount.value.gte"
        );
        assert_eq!(
            refused(json!({"$range": {"created": {"lt": "2024-04-23"}}})),
            "query.$range.created.lt"
        );
        assert_eq!(
            refused(json!({"$range": {"created": {"lt": [1]}}})),
            "query.$range.created.lt"
        );
        // A text field compares text, as before.
        assert_eq!(
            bounds(json!({"$range": {"status": {"gte": "a"}}})),
            [(">=", json!("a"))]
        );
        assert!(matches!(
            parse(&SCHEMA, "query", &json!({"$range": {"status": {"gte": "a"}}})).unwrap(),
            Filter::And(all) if matches!(all[0], Filter::Range(Field::Column { kind: Kind::Text, .. }, _))
        ));
    }

    #[test]
    fn dates_with_a_format_in_utc_or_a_zone() {
        assert_eq!(
            bounds(
                json!({"$range": {"created": {"gte": "2024-01-01", "lte": "2024-01-31", "format": "yyyy-MM-dd"}}})
            ),
            [(">=", json!(1_704_067_200)), ("<", json!(1_706_745_600))]
        );
        assert_eq!(
            bounds(
                json!({"$range": {"created": {"gte": "2024-01-01", "format": "yyyy-MM-dd", "time_zone": "Europe/Zurich"}}})
            ),
            [(">=", json!(1_704_063_600))]
        );
        assert_eq!(
            bounds(json!({"$range": {"created": {"gt": "1700000000", "format": "epoch_second"}}})),
            [(">", json!(1_700_000_000))]
        );
        assert_eq!(
            refused(json!({"$range": {"created": {"gte": "2024-01-01", "format": "dd.MM.yyyy"}}})),
            "query.$range.created.format"
        );
        assert_eq!(
            refused(json!({"$range": {"created": {"gte": "01.01.2024", "format": "yyyy-MM-dd"}}})),
            "query.$range.created.gte"
        );
        assert_eq!(
            refused(
                json!({"$range": {"created": {"gte": "2024-01-01", "format": "yyyy-MM-dd", "time_zone": "Moon"}}})
            ),
            "query.$range.created.time_zone"
        );
        assert_eq!(
            refused(json!({"$range": {"status": {"gte": "2024-01-01", "format": "yyyy-MM-dd"}}})),
            "query.$range.status.format"
        );
    }
}
