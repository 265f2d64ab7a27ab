//! The error bodies of docs/errors.md as schemas. They describe what the error-shaping
//! middleware (error_shape.rs) writes; nothing builds a response from them.

use utoipa::ToSchema;

/// One offending property, or the one message of an error that concerns none.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ErrorItem {
    /// `error.validation.not_valid`, `error.validation.not_blank`, `error.validation.not_null`, ...
    code: String,
    /// A dotted path (`amount.currency`, `recipient_emails[0]`), or empty.
    property: String,
    message: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ErrorADetail {
    http_code: u16,
    message: Vec<ErrorItem>,
    code: String,
}

/// Shape A of SPEC.md ("Errors").
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ErrorA {
    request_id: String,
    error: ErrorADetail,
}

/// Shape B of SPEC.md ("Errors"); Coffer's default.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ErrorB {
    request_id: String,
    http_code: u16,
    /// `bad_request`, `not_found`, `conflict`, ... (docs/errors.md)
    code: String,
    errors: Vec<ErrorItem>,
}

/// Shape C of SPEC.md ("Errors"): every 401 and 403.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ErrorC {
    message: String,
}

/// RFC 6749 section 5.2 with shape B's fields: the token endpoint's errors.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct OAuthError {
    /// `invalid_request`, `invalid_client`, `unsupported_grant_type`, ...
    error: String,
    error_description: String,
    request_id: String,
    http_code: u16,
    code: String,
    errors: Vec<ErrorItem>,
}
