//! Reading a request's properties into checked values, each failure named by its property
//! and collected, so one answer names every offending property.

use coffer_model::validation::{FieldError, Violations};
use uuid::Uuid;

/// A required text, trimmed, of at most `max` characters.
pub fn required_text(
    v: &mut Violations,
    property: &str,
    value: Option<&str>,
    max: usize,
) -> Option<String> {
    match value.map(str::trim) {
        None => {
            v.push(FieldError::not_null(property));
            None
        }
        Some("") => {
            v.push(FieldError::not_blank(property));
            None
        }
        Some(s) if s.chars().count() > max => {
            v.push(FieldError::not_valid(
                property,
                format!("must be at most {max} characters"),
            ));
            None
        }
        Some(s) => Some(s.to_owned()),
    }
}

pub fn required_uuid(v: &mut Violations, property: &str, value: Option<&str>) -> Option<Uuid> {
    match value {
        None => {
            v.push(FieldError::not_null(property));
            None
        }
        Some(raw) => v.check(coffer_model::ids::parse_uuid(property, raw)),
    }
}

/// A required value of a closed list; `choices` says which, as the error message.
pub fn required_choice<T>(
    v: &mut Violations,
    property: &str,
    value: Option<&str>,
    parse: fn(&str) -> Option<T>,
    choices: &str,
) -> Option<T> {
    match value {
        None => {
            v.push(FieldError::not_null(property));
            None
        }
        Some(raw) => parse(raw).or_else(|| {
            v.push(FieldError::invalid_choice(property, choices));
            None
        }),
    }
}
