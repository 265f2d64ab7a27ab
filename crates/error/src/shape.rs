use serde_json::{Value, json};

use crate::ApiError;

/// The error body shapes of SPEC.md ("Errors"), plus the OAuth 2.0 form of the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// `{request_id, error: {http_code, message: [items], code}}`
    A,
    /// `{request_id, http_code, code, errors: [items]}`; Coffer's default for operations
    /// SPEC.md does not pin to a shape, because it names the offending properties and the
    /// request id without nesting.
    #[default]
    B,
    /// `{message}`
    C,
    /// RFC 6749 section 5.2 (`error`, `error_description`) merged with shape B's fields, so
    /// OAuth client libraries and Coffer clients both find what they look for.
    OAuth,
}

impl Shape {
    pub fn render(self, error: &ApiError, request_id: &str) -> Value {
        let status = error.status().as_u16();
        match self {
            Shape::A => json!({
                "request_id": request_id,
                "error": {
                    "http_code": status,
                    "message": error.items_or_message(),
                    "code": error.code(),
                },
            }),
            Shape::B => json!({
                "request_id": request_id,
                "http_code": status,
                "code": error.code(),
                "errors": error.items_or_message(),
            }),
            Shape::C => json!({ "message": error.message() }),
            Shape::OAuth => json!({
                "error": error.oauth_error().unwrap_or("invalid_request"),
                "error_description": error.message(),
                "request_id": request_id,
                "http_code": status,
                "code": error.code(),
                "errors": error.items(),
            }),
        }
    }
}
