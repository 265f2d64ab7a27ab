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

/// One searchable kind of object: its table, and the fields a query may name there.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// The table as written in SQL; it has `uuid`, `organisation_uuid` and `created`.
    pub table: &'static str,
    /// The field a dotted path names, if it is searchable.
    pub field: fn(&str) -> Option<Field>,
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

fn named(schema: &Schema, property: &str, path: &str) -> Result<Field, FieldError> {
    schema.field(path).ok_or_else(|| {
        FieldError::not_valid(property, format!("{path:?} is not a searchable field"))
    })
}

/// The most conditions one query may hold, and the deepest it may nest operators. A
/// condition becomes a bound parameter and an expression in SQL, and the databases stop
/// at an expression depth of 1,000; these bounds keep every query far inside that.
pub const MAX_CONDITIONS: usize = 200;
pub const MAX_DEPTH: usize = 12;

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

/// Parses `query` (at `property`) into a filter within [`MAX_CONDITIONS`] and
/// [`MAX_DEPTH`].
pub fn parse(schema: &Schema, property: &str, query: &Value) -> Result<Filter, FieldError> {
    // A query nested past the bound is refused before it is walked.
    if nesting(query) > 4 * MAX_DEPTH {
        return Err(too_deep(property));
    }
    let filter = parse_clause(schema, property, query)?;
    if filter.conditions() > MAX_CONDITIONS {
        return Err(FieldError::not_valid(
            property,
            format!("must hold at most {MAX_CONDITIONS} conditions"),
        ));
    }
    if filter.depth() > MAX_DEPTH {
        return Err(too_deep(property));
    }
    Ok(filter)
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

fn parse_clause(schema: &Schema, property: &str, query: &Value) -> Result<Filter, FieldError> {
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
            // `$term` is the name RaiseNow's documented queries use for an exact match, which
            // is what `$match` does here.
            "$match" | "$term" => {
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
                        named(schema, &format!("{at}.{path}"), path)?,
                        value.clone(),
                    ));
                }
                Filter::And(all)
            }
            "$terms" => {
                let fields = arg.as_object().ok_or_else(|| {
                    FieldError::not_valid(&at, "must map fields to arrays of values")
                })?;
                let mut all = Vec::new();
                for (path, values) in fields {
                    let here = format!("{at}.{path}");
                    let field = named(schema, &here, path)?;
                    let values = values
                        .as_array()
                        .filter(|v| v.iter().all(|x| !x.is_object() && !x.is_array()))
                        .ok_or_else(|| {
                            FieldError::not_valid(&here, "must be an array of single values")
                        })?;
                    all.push(Filter::Or(
                        values
                            .iter()
                            .map(|v| Filter::Match(field.clone(), v.clone()))
                            .collect(),
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
                    .map(|(i, q)| parse_clause(schema, &format!("{at}[{i}]"), q))
                    .collect::<Result<Vec<_>, _>>()?;
                if op == "$and" {
                    Filter::And(parsed)
                } else {
                    Filter::Or(parsed)
                }
            }
            "$not" => Filter::Not(Box::new(parse_clause(schema, &at, arg)?)),
            "$exists" => {
                let path = arg
                    .as_str()
                    .ok_or_else(|| FieldError::not_valid(&at, "must name a field"))?;
                Filter::Exists(named(schema, &at, path)?)
            }
            "$range" => {
                let fields = arg
                    .as_object()
                    .ok_or_else(|| FieldError::not_valid(&at, "must map fields to bounds"))?;
                let mut all = Vec::new();
                for (path, bounds) in fields {
                    let here = format!("{at}.{path}");
                    let f = named(schema, &here, path)?;
                    let bounds = bounds.as_object().ok_or_else(|| {
                        FieldError::not_valid(&here, "must be an object of gt, gte, lt, lte")
                    })?;
                    all.push(crate::range::bounds(f, &here, bounds)?);
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
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn field(path: &str) -> Option<Field> {
        match path {
            "status" => Some(Field::Column {
                name: "status",
                kind: Kind::Text,
            }),
            "payment_method" => Some(Field::Column {
                name: "payment_method",
                kind: Kind::Text,
            }),
            "amount.value" => Some(Field::Column {
                name: "amount_value",
                kind: Kind::Int,
            }),
            "created" => Some(Field::Column {
                name: "created",
                kind: Kind::Int,
            }),
            _ => custom_parameter(path),
        }
    }

    pub(crate) const SCHEMA: Schema = Schema {
        table: "payments",
        field,
    };

    fn parse(property: &str, query: &Value) -> Result<Filter, FieldError> {
        super::parse(&SCHEMA, property, query)
    }

    #[test]
    fn term_is_an_exact_match_and_terms_any_of_several() {
        let term = parse("query", &json!({"$term": {"status": "succeeded"}})).unwrap();
        let matched = parse("query", &json!({"$match": {"status": "succeeded"}})).unwrap();
        assert_eq!(term, matched);
        let terms = parse("query", &json!({"$terms": {"status": ["a", "b"]}})).unwrap();
        assert_eq!(terms.conditions(), 2);
    }

    #[test]
    fn size_and_depth_are_bounded() {
        let many: Vec<Value> = (0..=MAX_CONDITIONS)
            .map(|i| json!({"$match": {"status": i.to_string()}}))
            .collect();
        let e = parse("query", &json!({ "$or": many })).unwrap_err();
        assert_eq!(e.property, "query");
        let mut deep = json!({"$match": {"status": "x"}});
        for _ in 0..MAX_DEPTH {
            deep = json!({ "$not": deep });
        }
        assert_eq!(parse("query", &deep).unwrap_err().property, "query");
        let mut ok = json!({"$match": {"status": "x"}});
        for _ in 0..MAX_DEPTH - 2 {
            ok = json!({ "$and": [ok] });
        }
        assert!(parse("query", &ok).is_ok());
    }

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
        let e = parse("query", &json!({"$terms": {"status": [{"a": 1}]}})).unwrap_err();
        assert_eq!(e.property, "query.$terms.status");
        assert!(field("custom_parameters.campaign").is_some());
    }
}
