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
