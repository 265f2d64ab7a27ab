//! `GET /` over HTTP: 200 for a valid token, 401 (from the `Caller` extractor) without one.

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_http::openapi::API_VERSION;
use serde::Serialize;

/// Which API answered and for which client.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Root<'a> {
    /// Always `Coffer`.
    name: &'static str,
    /// The version of the interface, as `/openapi.json` states it.
    api_version: &'static str,
    /// The client the token was issued to.
    client_id: &'a str,
    /// Where the description of every operation is.
    openapi: &'static str,
}

/// Whether the base URL and the token are right: 200 with a valid token, 401 without.
#[utoipa::path(get, path = "/", operation_id = "getRoot", tag = "Token",
    responses((status = 200, description = "The token is valid", body = Root),
        (status = 401, description = "No token, or not a valid one")))]
pub(crate) async fn get(caller: Caller) -> HttpResponse {
    HttpResponse::Ok().json(Root {
        name: "Coffer",
        api_version: API_VERSION,
        client_id: caller.client_id(),
        openapi: "/openapi.json",
    })
}
