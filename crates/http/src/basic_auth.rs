//! HTTP Basic credentials (RFC 7617): a client's id and secret at the token endpoint, a
//! user's e-mail address and password when an onboarding is connected.

use actix_web::HttpRequest;
use actix_web::http::header;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The user-id and password of an `Authorization: Basic` header, if the request has a
/// well-formed one.
pub fn basic_credentials(req: &HttpRequest) -> Option<(String, String)> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}
