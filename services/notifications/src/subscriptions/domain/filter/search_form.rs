//! The object form of a filter, in the payment search's language over the event
//! (`{"$match": {"data.payment_method": "card"}}`, with `$term`, `$terms`, `$and`, `$or`,
//! `$not`).

use coffer_model::validation::FieldError;

use serde_json::Value;

use super::tree::{AT, Filter, MAX_DEPTH, Operand};

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

/// `value` at `depth` conditions down, nested at most [`MAX_DEPTH`] levels.
pub(super) fn read(value: &Value, depth: usize) -> Result<Filter, FieldError> {
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
                    .map(|item| read(item, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                if operator == "$and" {
                    Filter::All(each)
                } else {
                    Filter::Any(each)
                }
            }
            "$not" => Filter::Not(Box::new(read(argument, depth + 1)?)),
            other => {
                return Err(bad(format!(
                    "{other:?} is not one of $match, $term, $terms, $and, $or, $not"
                )));
            }
        });
    }
    Ok(Filter::all(all))
}
