use std::fmt;

use actix_web::{HttpResponse, ResponseError, http::StatusCode};
use coffer_model::card_numbers::without_card_numbers;
use coffer_model::validation::FieldError;

use crate::Shape;

/// Stable top-level error codes. Clients branch on these, so they never change meaning.
pub mod codes {
    pub const BAD_REQUEST: &str = "bad_request";
    pub const UNAUTHORIZED: &str = "unauthorized";
    pub const FORBIDDEN: &str = "forbidden";
    pub const NOT_FOUND: &str = "not_found";
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    pub const CONFLICT: &str = "conflict";
    pub const TOO_MANY_REQUESTS: &str = "too_many_requests";
    pub const HEADERS_TOO_LARGE: &str = "request_header_fields_too_large";
    pub const PAYLOAD_TOO_LARGE: &str = "payload_too_large";
    pub const REQUEST_TIMEOUT: &str = "request_timeout";
    pub const UNAVAILABLE: &str = "service_unavailable";
    pub const INTERNAL: &str = "internal_error";
}

/// An error a route answers with. Internal causes are logged where they happen and never
/// stored here, so nothing internal can reach a response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    items: Vec<FieldError>,
    oauth_error: Option<&'static str>,
    /// 401 and 403 answer in shape C whatever the operation's shape (API.md, Conventions).
    forced_shape: Option<Shape>,
    /// Seconds, sent as `Retry-After` (429).
    retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            // Messages may name what a client sent (an unknown property, a key of its
            // object): a card number sent there is not said back.
            message: without_card_numbers(&message.into()),
            items: Vec::new(),
            oauth_error: None,
            forced_shape: None,
            retry_after: None,
        }
    }

    pub fn unauthorized() -> Self {
        let mut e = Self::new(
            StatusCode::UNAUTHORIZED,
            codes::UNAUTHORIZED,
            "Authentication Required",
        );
        e.forced_shape = Some(Shape::C);
        e
    }

    pub fn forbidden() -> Self {
        let mut e = Self::new(
            StatusCode::FORBIDDEN,
            codes::FORBIDDEN,
            "You are not allowed to access this resource",
        );
        e.forced_shape = Some(Shape::C);
        e
    }

    /// `what` names the missing thing for the reader: "Organisation", "Address", ...
    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            codes::NOT_FOUND,
            format!("{what} not found"),
        )
    }

    pub fn route_not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, codes::NOT_FOUND, "No such operation")
    }

    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            codes::METHOD_NOT_ALLOWED,
            "Method not allowed on this path",
        )
    }

    /// A validation failure: one item per offending property.
    pub fn validation(mut items: Vec<FieldError>) -> Self {
        for item in &mut items {
            item.property = without_card_numbers(&item.property);
            item.message = without_card_numbers(&item.message);
        }
        let message = match items.as_slice() {
            [one] => format!("{}: {}", one.property, one.message),
            _ => "The request is not valid".to_owned(),
        };
        let mut e = Self::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, message);
        e.items = items;
        e
    }

    pub fn invalid(property: &str, message: impl Into<String>) -> Self {
        Self::validation(vec![FieldError::not_valid(property, message)])
    }

    /// A 400 that concerns the request as a whole (unreadable body, wrong content type).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, codes::BAD_REQUEST, message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, codes::CONFLICT, message)
    }

    /// 429: the caller is over a limit and may try again after `retry_after_secs`
    /// (sent as `Retry-After`, at least 1).
    pub fn too_many_requests(message: impl Into<String>, retry_after_secs: u64) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            codes::TOO_MANY_REQUESTS,
            message,
        );
        e.retry_after = Some(retry_after_secs.max(1));
        e
    }

    /// 431, with the gateway's message (deploy/gateway/nginx.conf).
    pub fn headers_too_large() -> Self {
        Self::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            codes::HEADERS_TOO_LARGE,
            "The request headers are too large",
        )
    }

    /// 413: the body is over the operation's limit; the message says the limit.
    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            codes::PAYLOAD_TOO_LARGE,
            message,
        )
    }

    /// 408: the body did not arrive in time; the connection is closed after the answer.
    pub fn request_timeout(message: impl Into<String>) -> Self {
        Self::new(StatusCode::REQUEST_TIMEOUT, codes::REQUEST_TIMEOUT, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, codes::UNAVAILABLE, message)
    }

    /// Logs the cause with the current span (which carries the request id) and answers a
    /// bare 500.
    pub fn internal(cause: impl fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            codes::INTERNAL,
            "Internal Server Error",
        )
    }

    /// Any status without a Coffer meaning of its own, e.g. one raised inside the framework.
    pub fn from_status(status: StatusCode) -> Self {
        match status.as_u16() {
            401 => Self::unauthorized(),
            403 => Self::forbidden(),
            404 => Self::route_not_found(),
            405 => Self::method_not_allowed(),
            408 => Self::request_timeout("The request did not arrive in time"),
            413 => Self::payload_too_large("The request body is too large"),
            400..=499 => Self::bad_request(status.canonical_reason().unwrap_or("Bad Request")),
            _ => Self::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                codes::INTERNAL,
                "Internal Server Error",
            ),
        }
    }

    /// Marks the error with its RFC 6749 `error` value (token endpoint).
    pub fn with_oauth(mut self, error: &'static str) -> Self {
        self.oauth_error = Some(error);
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn code(&self) -> &'static str {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn items(&self) -> &[FieldError] {
        &self.items
    }

    pub fn oauth_error(&self) -> Option<&'static str> {
        self.oauth_error
    }

    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// The shape this error is written in when the operation speaks `route_shape`.
    pub fn shape_for(&self, route_shape: Shape) -> Shape {
        match (self.forced_shape, route_shape) {
            // The token endpoint keeps its OAuth form even for 401.
            (_, Shape::OAuth) => Shape::OAuth,
            (Some(forced), _) => forced,
            (None, shape) => shape,
        }
    }

    /// Shapes A and B always list items; an error without offending properties lists one
    /// item whose property is empty, so clients can read `message` in one place.
    pub(crate) fn items_or_message(&self) -> Vec<FieldError> {
        if self.items.is_empty() {
            vec![FieldError {
                code: self.code.to_owned(),
                property: String::new(),
                message: self.message.clone(),
            }]
        } else {
            self.items.clone()
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for ApiError {}

impl From<coffer_store::StoreError> for ApiError {
    fn from(e: coffer_store::StoreError) -> Self {
        match e {
            coffer_store::StoreError::SearchesBusy(n) => ApiError::too_many_requests(
                format!(
                    "{n} searches of this organisation are running and more are waiting; send the next when one has finished"
                ),
                1,
            ),
            e if e.is_search_timeout() => ApiError::unavailable(
                "The search did not finish in time; narrow its query, or ask for fewer hits or aggregations",
            ),
            e if e.is_busy() => {
                tracing::warn!(error = %e, "database busy");
                ApiError::unavailable("The service is temporarily unavailable")
            }
            coffer_store::StoreError::Pool(_) | coffer_store::StoreError::Unavailable(_) => {
                tracing::error!(error = %e, "database unavailable");
                ApiError::unavailable("The service is temporarily unavailable")
            }
            other => ApiError::internal(other),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    /// Writes the default shape without a request id and leaves the error itself in the
    /// response extensions; the error-shaping middleware re-renders it in the route's shape.
    fn error_response(&self) -> HttpResponse {
        let body = self.shape_for(Shape::default()).render(self, "");
        let mut builder = HttpResponse::build(self.status);
        if let Some(secs) = self.retry_after {
            builder.insert_header((actix_web::http::header::RETRY_AFTER, secs.to_string()));
        }
        let mut response = builder.json(body);
        response.extensions_mut().insert(self.clone());
        response
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shape_a_lists_items_under_error() {
        let e = ApiError::validation(vec![FieldError::not_valid("email", "not an e-mail")]);
        let v = Shape::A.render(&e, "r1");
        assert_eq!(v["request_id"], "r1");
        assert_eq!(v["error"]["http_code"], 400);
        assert_eq!(v["error"]["code"], "bad_request");
        assert_eq!(v["error"]["message"][0]["property"], "email");
        assert_eq!(
            v["error"]["message"][0]["code"],
            "error.validation.not_valid"
        );
    }

    #[test]
    fn shape_b_is_flat() {
        let e = ApiError::validation(vec![FieldError::not_blank("name")]);
        let v = Shape::B.render(&e, "r2");
        assert_eq!(v["http_code"], 400);
        assert_eq!(v["errors"][0]["property"], "name");
        assert_eq!(v["errors"][0]["code"], "error.validation.not_blank");
    }

    #[test]
    fn unauthorized_is_always_shape_c() {
        let e = ApiError::unauthorized();
        assert_eq!(e.shape_for(Shape::A), Shape::C);
        assert_eq!(
            Shape::C.render(&e, "x"),
            serde_json::json!({"message": "Authentication Required"})
        );
    }

    #[test]
    fn internal_hides_its_cause() {
        let e = ApiError::internal("connection refused to 10.0.0.1");
        let v = Shape::B.render(&e, "r");
        assert!(!v.to_string().contains("10.0.0.1"));
        assert_eq!(v["http_code"], 500);
    }

    #[test]
    fn too_many_requests_sends_retry_after_of_at_least_a_second() {
        let e = ApiError::too_many_requests("slow down", 0);
        assert_eq!(e.status().as_u16(), 429);
        assert_eq!(e.code(), "too_many_requests");
        let response = e.error_response();
        assert_eq!(response.headers().get("retry-after").unwrap(), "1");
        let response = ApiError::too_many_requests("slow down", 42).error_response();
        assert_eq!(response.headers().get("retry-after").unwrap(), "42");
    }

    #[test]
    fn oauth_shape_carries_rfc_fields() {
        let e = ApiError::bad_request("grant_type is missing").with_oauth("invalid_request");
        let v = Shape::OAuth.render(&e, "r");
        assert_eq!(v["error"], "invalid_request");
        assert_eq!(v["error_description"], "grant_type is missing");
        assert_eq!(v["http_code"], 400);
    }
}
