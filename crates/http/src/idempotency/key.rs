//! The `Idempotency-Key` header as a route reads it, and the digest that tells a repeat of
//! a request from another request sent under the same key.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use aws_lc_rs::digest::{SHA256, digest};
use coffer_error::ApiError;

/// The request's `Idempotency-Key`, if it sent one.
#[derive(Debug, Clone)]
pub struct IdempotencyKey(pub Option<String>);

impl FromRequest for IdempotencyKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = req.headers().get("idempotency-key") else {
            return ready(Ok(IdempotencyKey(None)));
        };
        let valid = value
            .to_str()
            .ok()
            .filter(|v| !v.is_empty() && v.len() <= 255 && v.bytes().all(|b| b.is_ascii_graphic()));
        ready(match valid {
            Some(v) => Ok(IdempotencyKey(Some(v.to_owned()))),
            None => Err(ApiError::invalid(
                "Idempotency-Key",
                "must be 1 to 255 visible ASCII characters",
            )),
        })
    }
}

/// What identifies "the same request": the operation and the body as parsed.
pub fn request_hash(req: &HttpRequest, body: &serde_json::Value) -> String {
    let mut input = format!("{} {}\n", req.method(), req.path()).into_bytes();
    input.extend(serde_json::to_vec(body).unwrap_or_default());
    digest(&SHA256, &input)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
