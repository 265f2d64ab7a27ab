//! The published signing keys (RFC 7517), which verifiers fetch.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::commands;
use super::keyring::Keyring;

/// The keys access tokens are signed with, for verifiers.
#[utoipa::path(get, path = "/.well-known/jwks.json", operation_id = "getJwks", tag = "Token",
    responses((status = 200, description = "The signing keys", body = coffer_auth::Jwks)))]
pub(crate) async fn get(keyring: web::Data<Keyring>) -> HttpResponse {
    HttpResponse::Ok()
        // Verifiers cache the set; a short lifetime lets a rotated-in key reach them soon.
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .json(commands::published(&keyring))
}
