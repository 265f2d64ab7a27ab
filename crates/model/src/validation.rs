//! Property-named validation failures, the shared currency between parsing and the HTTP layer.

use serde::Serialize;

/// Stable error codes clients match on; SPEC.md fixes their spelling.
pub mod codes {
    pub const NOT_VALID: &str = "error.validation.not_valid";
    pub const NOT_BLANK: &str = "error.validation.not_blank";
    pub const NOT_NULL: &str = "error.validation.not_null";
    pub const INVALID_CHOICE: &str = "the_value_you_selected_is_not_a_valid_choice";
}

/// One offending property. `property` is a dotted path such as `amount.currency`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub code: String,
    pub property: String,
    pub message: String,
}

impl FieldError {
    pub fn new(code: &str, property: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            property: property.into(),
            message: message.into(),
        }
    }

    pub fn not_valid(property: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(codes::NOT_VALID, property, message)
    }

    pub fn not_blank(property: impl Into<String>) -> Self {
        Self::new(codes::NOT_BLANK, property, "must not be blank")
    }

    pub fn not_null(property: impl Into<String>) -> Self {
        Self::new(codes::NOT_NULL, property, "is required")
    }

    pub fn invalid_choice(property: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_CHOICE, property, message)
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.property, self.message)
    }
}

/// Gathers every failure of a request so the client learns about all of them at once,
/// instead of fixing one property per round trip.
#[derive(Debug, Default)]
pub struct Violations {
    errors: Vec<FieldError>,
}

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, error: FieldError) {
        self.errors.push(error);
    }

    pub fn extend(&mut self, errors: impl IntoIterator<Item = FieldError>) {
        self.errors.extend(errors);
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn into_vec(self) -> Vec<FieldError> {
        self.errors
    }

    /// Keeps the value when it parsed and remembers the failure otherwise, so a builder can
    /// carry on checking the remaining properties.
    pub fn check<T>(&mut self, result: Result<T, FieldError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// Like [`Violations::check`] for parsers that report several properties at once.
    pub fn check_all<T>(&mut self, result: Result<T, Vec<FieldError>>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(errors) => {
                self.extend(errors);
                None
            }
        }
    }

    /// A required property that is absent becomes a `not_null` failure.
    pub fn require<T>(&mut self, property: &str, value: Option<T>) -> Option<T> {
        if value.is_none() {
            self.push(FieldError::not_null(property));
        }
        value
    }

    pub fn finish<T>(self, value: T) -> Result<T, Vec<FieldError>> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(self.errors)
        }
    }
}

/// A name a person reads (of a partner, a user): trimmed, not blank, at most `max_chars`.
pub fn display_name(property: &str, raw: &str, max_chars: usize) -> Result<String, FieldError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(FieldError::not_blank(property));
    }
    if name.chars().count() > max_chars {
        return Err(FieldError::not_valid(
            property,
            format!("must be at most {max_chars} characters"),
        ));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn constructors_use_the_published_codes() {
        assert_eq!(
            FieldError::not_valid("a", "m").code,
            "error.validation.not_valid"
        );
        assert_eq!(
            FieldError::not_blank("a").code,
            "error.validation.not_blank"
        );
        assert_eq!(FieldError::not_null("a").code, "error.validation.not_null");
        let choice = FieldError::invalid_choice("status", "m");
        assert_eq!(choice.code, "the_value_you_selected_is_not_a_valid_choice");
        assert_eq!(choice.property, "status");
    }

    #[test]
    fn serialises_three_fields() {
        let json = serde_json::to_value(FieldError::not_valid("amount.value", "bad")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "error.validation.not_valid",
                "property": "amount.value",
                "message": "bad"
            })
        );
    }

    #[test]
    fn finish_succeeds_only_without_failures() {
        let mut clean = Violations::new();
        assert_eq!(clean.check::<u8>(Ok(3)), Some(3));
        assert!(clean.is_empty());
        assert_eq!(clean.finish("ok"), Ok("ok"));

        let mut dirty = Violations::new();
        assert_eq!(dirty.check::<u8>(Err(FieldError::not_blank("name"))), None);
        assert_eq!(dirty.require::<u8>("token", None), None);
        dirty.extend(vec![FieldError::not_valid("x", "y")]);
        let errors = dirty.finish(()).unwrap_err();
        let properties: Vec<_> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(properties, ["name", "token", "x"]);
    }
}
