//! Reading a JSON body field by field, to name every offending property at once rather
//! than stopping at the first (as a typed deserialiser would). Each reader distinguishes a
//! field left out (`None`) from one sent as null (`Some(None)`), which clears it.

use serde_json::{Map, Value};

use crate::ids::parse_uuid;
use crate::validation::FieldError;

pub struct FieldReader<'a> {
    body: &'a Map<String, Value>,
    /// What was wrong so far, in the order the fields were read.
    pub errors: Vec<FieldError>,
}

impl<'a> FieldReader<'a> {
    /// A reader of `body`, which must be a JSON object.
    pub fn of(body: &'a Value) -> Result<Self, Vec<FieldError>> {
        match body.as_object() {
            Some(object) => Ok(Self {
                body: object,
                errors: Vec::new(),
            }),
            None => Err(vec![FieldError::not_valid("body", "must be a JSON object")]),
        }
    }

    /// The raw value of a field, when it was sent.
    pub fn get(&self, property: &str) -> Option<&'a Value> {
        self.body.get(property)
    }

    /// A uuid, in its hyphenated form.
    pub fn uuid(&mut self, property: &str) -> Option<Option<String>> {
        match self.get(property)? {
            Value::Null => Some(None),
            Value::String(raw) => match parse_uuid(property, raw) {
                Ok(u) => Some(Some(u.to_string())),
                Err(e) => {
                    self.errors.push(e);
                    None
                }
            },
            _ => {
                self.errors
                    .push(FieldError::not_valid(property, "must be a uuid"));
                None
            }
        }
    }

    /// A flag: true or false, also as the text `"true"` or `"false"` (the form in which
    /// some answers show flags, so a client may send back what it read). Null is left out.
    pub fn flag(&mut self, property: &str) -> Option<bool> {
        match self.get(property)? {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" || s == "false" => Some(s == "true"),
            _ => {
                self.errors
                    .push(FieldError::not_valid(property, "must be true or false"));
                None
            }
        }
    }

    /// A string of at most `max` characters; a blank one clears the field, as null does.
    pub fn text(&mut self, property: &str, max: usize) -> Option<Option<String>> {
        match self.get(property)? {
            Value::Null => Some(None),
            Value::String(s) if s.trim().is_empty() => Some(None),
            Value::String(s) if s.chars().count() > max => {
                self.errors.push(FieldError::not_valid(
                    property,
                    format!("must be at most {max} characters"),
                ));
                None
            }
            Value::String(s) => Some(Some(s.clone())),
            _ => {
                self.errors
                    .push(FieldError::not_valid(property, "must be a string"));
                None
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn left_out_null_and_bad_are_told_apart_and_every_bad_one_is_named() {
        let body = json!({"a": null, "b": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "c": 7,
            "d": "  ", "e": "long text", "f": "ok"});
        let mut r = FieldReader::of(&body).unwrap();
        assert_eq!(r.uuid("missing"), None);
        assert_eq!(r.uuid("a"), Some(None));
        assert_eq!(
            r.uuid("b"),
            Some(Some("7c9e6679-7425-40de-944b-e07fc1f90ae7".into()))
        );
        assert_eq!(r.uuid("c"), None);
        assert_eq!(r.text("d", 5), Some(None));
        assert_eq!(r.text("e", 5), None);
        assert_eq!(r.text("f", 5), Some(Some("ok".into())));
        let named: Vec<&str> = r.errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(named, ["c", "e"]);
        assert_eq!(
            FieldReader::of(&json!([1])).err().unwrap()[0].property,
            "body"
        );
    }
}
