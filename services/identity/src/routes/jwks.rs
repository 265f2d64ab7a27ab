use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::IdentityState;

pub(super) async fn get(state: web::Data<IdentityState>) -> HttpResponse {
    HttpResponse::Ok()
        // Verifiers cache the set; a short lifetime lets a rotated-in key reach them soon.
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .json(state.keyring.jwks())
}
