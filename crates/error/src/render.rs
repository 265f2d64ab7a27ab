//! An error written in each shape, as the response body carries it.

use serde_json::{Value, json};

use crate::{ApiError, Shape};

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
