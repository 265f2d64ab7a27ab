//! The parts of the tenancy rule every identity read shares: a path's uuid is parsed
//! before anything is loaded, and a caller sees only its own organisations.

use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_model::ids::parse_uuid;

/// `raw` as a stored uuid; a malformed one is the caller's mistake (400), not a 404.
pub(crate) fn uuid(property: &str, raw: &str) -> Result<String, ApiError> {
    parse_uuid(property, raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

/// The caller's organisations as stored text; `None` for a platform caller.
pub(crate) fn visible_organisations(caller: &Caller) -> Option<Vec<String>> {
    caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect())
}
