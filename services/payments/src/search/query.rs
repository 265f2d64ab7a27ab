//! The search request, parsed into a filter tree over known fields; pure, no SQL.

use coffer_model::validation::FieldError;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Bool,
}

/// A searchable field: a column, or a key inside a JSON column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Column { name: &'static str, kind: Kind },
    Json { column: &'static str, key: String },
}

pub fn field(path: &str) -> Option<Field> {
    let column = |name, kind| Some(Field::Column { name, kind });
    match path {
        "uuid" | "organisation_uuid" | "account_uuid" | "status" | "payment_method"
        | "supporter_uuid" | "subscription_uuid" => column(static_name(path), Kind::Text),
        "amount.value" => column("amount_value", Kind::Int),
        "amount.currency" => column("currency", Kind::Text),
        "created" => column("created", Kind::Int),
        "test_mode" => column("test_mode", Kind::Bool),
        "supporter.email" => Some(Field::Json {
            column: "supporter",
            key: "email".into(),
        }),
        "supporter.last_name" => Some(Field::Json {
            column: "supporter",
            key: "last_name".into(),
        }),
        _ => {
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
    }
}

fn static_name(path: &str) -> &'static str {
    match path {
        "uuid" => "uuid",
        "organisation_uuid" => "organisation_uuid",
        "account_uuid" => "account_uuid",
        "status" => "status",
        "payment_method" => "payment_method",
        "supporter_uuid" => "supporter_uuid",
        _ => "subscription_uuid",
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Match(Field, Value),
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Box<Filter>),
    /// (operator as SQL, value)
    Range(Field, Vec<(&'static str, Value)>),
    Exists(Field),
}

fn named(property: &str, path: &str) -> Result<Field, FieldError> {
    field(path).ok_or_else(|| {
        FieldError::not_valid(property, format!("{path:?} is not a searchable field"))
    })
}

/// Parses `query` (at `property`) into a filter.
pub fn parse(property: &str, query: &Value) -> Result<Filter, FieldError> {
    let Some(object) = query.as_object() else {
        return Err(FieldError::not_valid(
            property,
            "must be an object of one operator",
        ));
    };
    let mut parts = Vec::new();
    for (op, arg) in object {
        let at = format!("{property}.{op}");
        let part = match op.as_str() {
            "$match" => {
                let fields = arg
                    .as_object()
                    .ok_or_else(|| FieldError::not_valid(&at, "must map fields to values"))?;
                let mut all = Vec::new();
                for (path, value) in fields {
                    if value.is_object() || value.is_array() {
                        return Err(FieldError::not_valid(
                            format!("{at}.{path}"),
                            "must be a single value",
                        ));
                    }
                    all.push(Filter::Match(
                        named(&format!("{at}.{path}"), path)?,
                        value.clone(),
                    ));
                }
                Filter::And(all)
            }
            "$and" | "$or" => {
                let items = arg
                    .as_array()
                    .ok_or_else(|| FieldError::not_valid(&at, "must be an array of queries"))?;
                let parsed = items
                    .iter()
                    .enumerate()
                    .map(|(i, q)| parse(&format!("{at}[{i}]"), q))
                    .collect::<Result<Vec<_>, _>>()?;
                if op == "$and" {
                    Filter::And(parsed)
                } else {
                    Filter::Or(parsed)
                }
            }
            "$not" => Filter::Not(Box::new(parse(&at, arg)?)),
            "$exists" => {
                let path = arg
                    .as_str()
                    .ok_or_else(|| FieldError::not_valid(&at, "must name a field"))?;
                Filter::Exists(named(&at, path)?)
            }
            "$range" => {
                let fields = arg
                    .as_object()
                    .ok_or_else(|| FieldError::not_valid(&at, "must map fields to bounds"))?;
                let mut all = Vec::new();
                for (path, bounds) in fields {
                    let here = format!("{at}.{path}");
                    let f = named(&here, path)?;
                    let bounds = bounds.as_object().ok_or_else(|| {
                        FieldError::not_valid(&here, "must be an object of gt, gte, lt, lte")
                    })?;
                    let mut ops = Vec::new();
                    for (name, value) in bounds {
                        let sql = match name.as_str() {
                            "gt" => ">",
                            "gte" => ">=",
                            "lt" => "<",
                            "lte" => "<=",
                            other => {
                                return Err(FieldError::not_valid(
                                    format!("{here}.{other}"),
                                    "is not gt, gte, lt or lte",
                                ));
                            }
                        };
                        ops.push((sql, value.clone()));
                    }
                    all.push(Filter::Range(f, ops));
                }
                Filter::And(all)
            }
            other => {
                return Err(FieldError::not_valid(
                    &at,
                    format!("{other:?} is not an operator"),
                ));
            }
        };
        parts.push(part);
    }
    Ok(if parts.len() == 1 {
        parts.remove(0)
    } else {
        Filter::And(parts)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_and_operators_are_named() {
        let e = parse("query", &json!({"$match": {"password": "x"}})).unwrap_err();
        assert_eq!(e.property, "query.$match.password");
        let e = parse(
            "query",
            &json!({"$or": [{"$match": {"status": "x"}}, {"$near": {}}]}),
        )
        .unwrap_err();
        assert_eq!(e.property, "query.$or[1].$near");
        let e = parse("query", &json!({"$range": {"created": {"around": 1}}})).unwrap_err();
        assert_eq!(e.property, "query.$range.created.around");
        assert!(field("custom_parameters.a'b").is_none());
        assert!(field("custom_parameters.campaign").is_some());
    }
}
