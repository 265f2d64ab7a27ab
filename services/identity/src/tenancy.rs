//! The part of the tenancy rule every identity read shares: a caller sees only its own
//! organisations. (A path's uuid is parsed before anything is loaded, by coffer_http's
//! `PathUuid`: a malformed one is the caller's mistake, 400, not a 404.)

use coffer_auth::Caller;

/// The caller's organisations as stored text; `None` for a platform caller.
pub(crate) fn visible_organisations(caller: &Caller) -> Option<Vec<String>> {
    caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect())
}
