//! One clause of a query and the clauses inside it, each fault pushed with the property it
//! was found at, so that one answer names them all. Values are checked against the field's
//! kind here, where the property is known, and not first when the SQL binds them.

use coffer_model::validation::FieldError;
use serde_json::{Map, Value};

use super::{MAX_ERRORS, Schema};
use crate::filter::{Field, Filter};
use crate::sql;

/// What stands in for a clause that could not be read; its faults are in `errors`.
fn nothing() -> Filter {
    Filter::And(Vec::new())
}

fn named(
    schema: &Schema,
    property: &str,
    path: &str,
    errors: &mut Vec<FieldError>,
) -> Option<Field> {
    let field = schema.field(path);
    if field.is_none() {
        errors.push(FieldError::not_valid(
            property,
            format!("{path:?} is not a searchable field"),
        ));
    }
    field
}

/// A value `field` can be compared with, or its fault at `property`.
fn value(field: &Field, property: &str, value: &Value, errors: &mut Vec<FieldError>) -> bool {
    let fault = sql::bind(field, value).err();
    if let Some(message) = fault {
        errors.push(FieldError::not_valid(property, message));
    }
    fault.is_none()
}

/// The object an operator takes, or its fault.
fn object<'a>(
    arg: &'a Value,
    at: &str,
    message: &str,
    errors: &mut Vec<FieldError>,
) -> Option<&'a Map<String, Value>> {
    let object = arg.as_object();
    if object.is_none() {
        errors.push(FieldError::not_valid(at, message));
    }
    object
}

pub(super) fn parse(
    schema: &Schema,
    property: &str,
    query: &Value,
    errors: &mut Vec<FieldError>,
) -> Filter {
    let Some(operators) = query.as_object() else {
        errors.push(FieldError::not_valid(
            property,
            "must be an object of one operator",
        ));
        return nothing();
    };
    let mut parts = Vec::new();
    for (op, arg) in operators {
        if errors.len() >= MAX_ERRORS {
            break;
        }
        let at = format!("{property}.{op}");
        let part = match op.as_str() {
            // `$term` is the name RaiseNow's documented queries use for an exact match, which
            // is what `$match` does here.
            "$match" | "$term" => matches(schema, &at, arg, errors),
            "$terms" => any_of(schema, &at, arg, errors),
            "$and" | "$or" => {
                let Some(items) = arg.as_array() else {
                    errors.push(FieldError::not_valid(&at, "must be an array of queries"));
                    continue;
                };
                let parsed = items
                    .iter()
                    .enumerate()
                    .map(|(i, q)| parse(schema, &format!("{at}[{i}]"), q, errors))
                    .collect();
                if op == "$and" {
                    Filter::And(parsed)
                } else {
                    Filter::Or(parsed)
                }
            }
            "$not" => Filter::Not(Box::new(parse(schema, &at, arg, errors))),
            "$exists" => match arg.as_str() {
                Some(path) => match named(schema, &at, path, errors) {
                    Some(field) => Filter::Exists(field),
                    None => nothing(),
                },
                None => {
                    errors.push(FieldError::not_valid(&at, "must name a field"));
                    nothing()
                }
            },
            "$range" => ranges(schema, &at, arg, errors),
            other => {
                errors.push(FieldError::not_valid(
                    &at,
                    format!("{other:?} is not an operator"),
                ));
                nothing()
            }
        };
        parts.push(part);
    }
    if parts.len() == 1 {
        parts.remove(0)
    } else {
        Filter::And(parts)
    }
}

/// Each field an operator maps to its argument: the property it stands at, the field if
/// it is searchable (else named), and what it was given.
fn fields<'a>(
    schema: &Schema,
    at: &str,
    arg: &'a Value,
    message: &str,
    errors: &mut Vec<FieldError>,
) -> Vec<(String, Option<Field>, &'a Value)> {
    let Some(fields) = object(arg, at, message, errors) else {
        return Vec::new();
    };
    fields
        .iter()
        .map(|(path, given)| {
            let here = format!("{at}.{path}");
            let field = named(schema, &here, path, errors);
            (here, field, given)
        })
        .collect()
}

/// `$match`: each field equal to its value.
fn matches(schema: &Schema, at: &str, arg: &Value, errors: &mut Vec<FieldError>) -> Filter {
    let mut all = Vec::new();
    for (here, field, given) in fields(schema, at, arg, "must map fields to values", errors) {
        if let Some(field) = field
            && value(&field, &here, given, errors)
        {
            all.push(Filter::Match(field, given.clone()));
        }
    }
    Filter::And(all)
}

/// `$terms`: each field equal to any of its values.
fn any_of(schema: &Schema, at: &str, arg: &Value, errors: &mut Vec<FieldError>) -> Filter {
    let mut all = Vec::new();
    let message = "must map fields to arrays of values";
    for (here, field, values) in fields(schema, at, arg, message, errors) {
        let Some(values) = values.as_array() else {
            errors.push(FieldError::not_valid(&here, "must be an array of values"));
            continue;
        };
        let Some(field) = field else { continue };
        let mut any = Vec::new();
        for (i, given) in values.iter().enumerate() {
            if value(&field, &format!("{here}[{i}]"), given, errors) {
                any.push(Filter::Match(field.clone(), given.clone()));
            }
        }
        all.push(Filter::Or(any));
    }
    Filter::And(all)
}

/// `$range`: each field within its bounds (range.rs).
fn ranges(schema: &Schema, at: &str, arg: &Value, errors: &mut Vec<FieldError>) -> Filter {
    let mut all = Vec::new();
    for (here, field, bounds) in fields(schema, at, arg, "must map fields to bounds", errors) {
        let Some(bounds) = bounds.as_object() else {
            let message = "must be an object of gt, gte, lt, lte";
            errors.push(FieldError::not_valid(&here, message));
            continue;
        };
        match field.map(|field| crate::range::bounds(field, &here, bounds)) {
            Some(Ok(range)) => all.push(range),
            Some(Err(faults)) => errors.extend(faults),
            None => {}
        }
    }
    Filter::And(all)
}
