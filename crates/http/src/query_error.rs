//! The 400 for a query string that does not read. Serde names the parameter for a
//! duplicate, unknown or missing one (`duplicate field `limit``); the error then names it as
//! its property, as a body's errors do.

use actix_web::error::QueryPayloadError;
use coffer_error::ApiError;

pub(crate) fn query_error(e: &QueryPayloadError) -> ApiError {
    let message = e.to_string();
    match named_parameter(&message) {
        Some(name) => ApiError::invalid(name, format!("The query string is not valid: {message}")),
        None => ApiError::bad_request(format!("The query string is not valid: {message}")),
    }
}

/// The parameter serde's message is about, when it says.
fn named_parameter(message: &str) -> Option<&str> {
    ["duplicate field `", "unknown field `", "missing field `"]
        .iter()
        .find_map(|lead| message.split_once(lead))
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(name, _)| name)
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::named_parameter;

    #[test]
    fn serdes_messages_name_their_parameter() {
        assert_eq!(
            named_parameter("Query deserialize error: duplicate field `limit`"),
            Some("limit")
        );
        assert_eq!(
            named_parameter("unknown field `x`, expected one of `a`, `b`"),
            Some("x")
        );
        assert_eq!(
            named_parameter("missing field `organisation_uuid`"),
            Some("organisation_uuid")
        );
        assert_eq!(named_parameter("invalid digit found in string"), None);
    }
}
