//! A subscription's filter: which of its events are delivered. It comes in two forms, both
//! read into the same [`Filter`] and never run as code:
//! - an object in the payment search's language over the event (`{"$match":
//!   {"data.payment_method": "card"}}`, with `$term`, `$terms`, `$and`, `$or`, `$not`);
//! - an expression string as clients written for other platforms send it
//!   (`event.data["payment_method"] === "card"`), read by expression.rs.
//!
//! Paths are taken from the event (`data.payment_method` is the event's `data` object's
//! `payment_method`). A path that leads nowhere reads as null.

use coffer_model::validation::FieldError;
use serde_json::Value;

use super::expression;

/// The property every filter problem is named by.
pub const AT: &str = "filter";
/// Bounds on what one event's check may cost.
pub const MAX_DEPTH: usize = 32;
pub const MAX_NODES: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Always (or never) true: a comparison of two literals.
    Constant(bool),
    Equals(Operand, Operand),
    /// JavaScript's truthiness: not null, false, 0, "" or missing.
    Truthy(Operand),
    All(Vec<Filter>),
    Any(Vec<Filter>),
    Not(Box<Filter>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(Vec<String>),
    Literal(Value),
}

impl Operand {
    fn value<'a>(&'a self, event: &'a Value) -> &'a Value {
        match self {
            Operand::Literal(v) => v,
            Operand::Path(keys) => keys
                .iter()
                .try_fold(event, |at, key| match at {
                    Value::Object(map) => map.get(key),
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                    _ => None,
                })
                .unwrap_or(&Value::Null),
        }
    }
}

impl Filter {
    /// All of `each`; one alone is itself.
    pub fn all(mut each: Vec<Filter>) -> Filter {
        if each.len() == 1 {
            each.remove(0)
        } else {
            Filter::All(each)
        }
    }

    /// Any of `each`; one alone is itself.
    pub fn any(mut each: Vec<Filter>) -> Filter {
        if each.len() == 1 {
            each.remove(0)
        } else {
            Filter::Any(each)
        }
    }

    /// Whether `event` (the envelope's `event` object) passes.
    pub fn passes(&self, event: &Value) -> bool {
        match self {
            Filter::Constant(b) => *b,
            Filter::Equals(a, b) => a.value(event) == b.value(event),
            Filter::Truthy(a) => match a.value(event) {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
                Value::String(s) => !s.is_empty(),
                Value::Array(_) | Value::Object(_) => true,
            },
            Filter::All(fs) => fs.iter().all(|f| f.passes(event)),
            Filter::Any(fs) => fs.iter().any(|f| f.passes(event)),
            Filter::Not(f) => !f.passes(event),
        }
    }

    fn nodes(&self) -> usize {
        match self {
            Filter::Constant(_) | Filter::Equals(..) | Filter::Truthy(_) => 1,
            Filter::All(fs) | Filter::Any(fs) => 1 + fs.iter().map(Filter::nodes).sum::<usize>(),
            Filter::Not(f) => 1 + f.nodes(),
        }
    }
}

/// Reads a subscription's `filter`: an object, an expression string, or null for none.
pub fn read(raw: &Value) -> Result<Option<Filter>, FieldError> {
    let filter = match raw {
        Value::Null => return Ok(None),
        Value::String(text) => expression::parse(text)?,
        Value::Object(_) => from_object(raw, 0)?,
        _ => {
            return Err(FieldError::not_valid(
                AT,
                "must be a search object or an expression string",
            ));
        }
    };
    if filter.nodes() > MAX_NODES {
        return Err(FieldError::not_valid(
            AT,
            format!("must have at most {MAX_NODES} conditions"),
        ));
    }
    Ok(Some(filter))
}

fn bad(message: impl Into<String>) -> FieldError {
    FieldError::not_valid(AT, message)
}

fn path(dotted: &str) -> Result<Operand, FieldError> {
    if dotted.is_empty() || dotted.split('.').any(str::is_empty) {
        return Err(bad(format!("{dotted:?} is not a field path")));
    }
    Ok(Operand::Path(
        dotted.split('.').map(str::to_owned).collect(),
    ))
}

fn from_object(value: &Value, depth: usize) -> Result<Filter, FieldError> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("must be nested at most {MAX_DEPTH} levels")));
    }
    let Some(object) = value.as_object() else {
        return Err(bad("each condition must be an object"));
    };
    let mut all = Vec::new();
    for (operator, argument) in object {
        all.push(match operator.as_str() {
            "$match" | "$term" => {
                let pairs = argument
                    .as_object()
                    .ok_or_else(|| bad(format!("{operator} takes {{field: value}}")))?;
                let mut each = Vec::new();
                for (field, wanted) in pairs {
                    each.push(Filter::Equals(
                        path(field)?,
                        Operand::Literal(wanted.clone()),
                    ));
                }
                Filter::all(each)
            }
            "$terms" => {
                let pairs = argument
                    .as_object()
                    .ok_or_else(|| bad("$terms takes {field: [values]}"))?;
                let mut each = Vec::new();
                for (field, wanted) in pairs {
                    let values = wanted
                        .as_array()
                        .ok_or_else(|| bad("$terms takes {field: [values]}"))?;
                    let field = path(field)?;
                    each.push(Filter::any(
                        values
                            .iter()
                            .map(|v| Filter::Equals(field.clone(), Operand::Literal(v.clone())))
                            .collect(),
                    ));
                }
                Filter::all(each)
            }
            "$and" | "$or" => {
                let items = argument
                    .as_array()
                    .ok_or_else(|| bad(format!("{operator} takes a list of conditions")))?;
                let each = items
                    .iter()
                    .map(|item| from_object(item, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                if operator == "$and" {
                    Filter::All(each)
                } else {
                    Filter::Any(each)
                }
            }
            "$not" => Filter::Not(Box::new(from_object(argument, depth + 1)?)),
            other => {
                return Err(bad(format!(
                    "{other:?} is not one of $match, $term, $terms, $and, $or, $not"
                )));
            }
        });
    }
    Ok(Filter::all(all))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event() -> Value {
        json!({"name": "coffer.event.payment_gateway.payment.succeeded",
            "data": {"payment_method": "card", "amount": {"value": "1050", "currency": "CHF"},
                "test_mode": false, "custom_parameters": {"campaign": "winter"}}})
    }

    fn passes(filter: Value) -> bool {
        read(&filter).unwrap().unwrap().passes(&event())
    }

    #[test]
    fn the_search_form_matches_paths_of_the_event() {
        assert!(passes(json!({"$match": {"data.payment_method": "card"}})));
        assert!(!passes(json!({"$match": {"data.payment_method": "twint"}})));
        assert!(passes(
            json!({"$terms": {"data.amount.currency": ["EUR", "CHF"]}})
        ));
        assert!(passes(
            json!({"$and": [{"$term": {"data.test_mode": false}},
            {"$not": {"$match": {"data.custom_parameters.campaign": "spring"}}}]})
        ));
        assert!(passes(
            json!({"$or": [{"$match": {"data.missing": "x"}}, {"$match": {"data.missing": null}}]})
        ));
        assert_eq!(read(&Value::Null).unwrap(), None);
    }

    #[test]
    fn an_unknown_operator_a_bad_shape_or_too_much_is_named() {
        let deep = (0..40).fold(json!({"$match": {"a": 1}}), |f, _| json!({"$not": f}));
        let wide =
            json!({"$or": (0..250).map(|i| json!({"$match": {"a": i}})).collect::<Vec<_>>()});
        for bad in [
            json!({"$regex": {"data.a": "."}}),
            json!({"$match": "card"}),
            json!({"$terms": {"data.a": "card"}}),
            json!({"$and": {"$match": {}}}),
            json!({"$match": {"data..a": 1}}),
            json!(7),
            deep,
            wide,
        ] {
            assert_eq!(read(&bad).unwrap_err().property, "filter", "{bad}");
        }
    }
}
