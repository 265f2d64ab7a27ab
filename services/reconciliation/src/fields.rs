//! Reading a request's properties into checked values, each failure named by its property
//! and collected, so one answer names every offending property.

use coffer_model::validation::{FieldError, Violations};
use uuid::Uuid;

use crate::error::ReconciliationError;

/// A required text, trimmed, of at most `max` characters and without control characters
/// (a NUL, which PostgreSQL's text cannot hold, among them).
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
        Some(s) if s.chars().any(char::is_control) => {
            v.push(FieldError::not_valid(
                property,
                "must not contain control characters",
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

/// Reads a request body into `T` and checks it, naming every offending property in one
/// answer: the properties of the wrong type (coffer-http names them all), and then, with
/// those taken out, whatever `check` finds wrong with the rest (a required property
/// missing, a value out of range).
pub fn read_checked<T, C>(
    body: serde_json::Value,
    check: impl FnOnce(T) -> Result<C, Vec<FieldError>>,
) -> Result<C, ReconciliationError>
where
    T: serde::de::DeserializeOwned,
{
    let wrong = match coffer_http::body::parse_value_at::<T>("", body.clone()) {
        Ok(read) => return check(read).map_err(ReconciliationError::invalid_all),
        Err(wrong) => wrong,
    };
    let mut rest = body;
    for error in &wrong {
        take_out(&mut rest, &error.property);
    }
    let mut all = wrong.clone();
    if let Ok(read) = serde_json::from_value::<T>(rest)
        && let Err(more) = check(read)
    {
        let named = |p: &str| wrong.iter().any(|w| owner(&w.property) == owner(p));
        all.extend(more.into_iter().filter(|m| !named(&m.property)));
    }
    Err(ReconciliationError::invalid_all(all))
}

/// The property an error is about, without an item's index (`versions[0]` is `versions`'s).
fn owner(property: &str) -> &str {
    property.split('[').next().unwrap_or(property)
}

/// Removes the property at a dotted path (its array, for an item of one).
fn take_out(body: &mut serde_json::Value, property: &str) {
    let path: Vec<&str> = owner(property).split('.').collect();
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = body;
    for part in parents {
        match at.get_mut(*part) {
            Some(next) => at = next,
            None => return,
        }
    }
    if let Some(map) = at.as_object_mut() {
        map.remove(*last);
    }
}
