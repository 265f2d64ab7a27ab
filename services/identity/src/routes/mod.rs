//! Identity's HTTP surface (API.md, "Token", "Organisations" and "Accounts").

mod accounts;
mod attachments;
mod jwks;
mod lookup;
mod organisations;
mod token;
pub(crate) mod views;

use actix_web::web;
use coffer_http::Shape;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/oauth2/token")
            .app_data(Shape::OAuth)
            .route(web::post().to(token::grant)),
    )
    .route("/.well-known/jwks.json", web::get().to(jwks::get))
    .route("/organisations", web::get().to(organisations::list))
    .route(
        "/search/organisations",
        web::get().to(organisations::search),
    )
    .route(
        "/organisations/{organisation_uuid}",
        web::get().to(organisations::get),
    )
    .route(
        "/organisations/{organisation_uuid}/addresses",
        web::get().to(organisations::addresses),
    )
    .route(
        "/organisations/{organisation_uuid}/addresses/{address_uuid}",
        web::get().to(organisations::address),
    )
    .route(
        "/organisations/{organisation_uuid}/metadata",
        web::get().to(organisations::metadata),
    )
    .route("/accounts", web::get().to(accounts::list))
    .route("/accounts/{account_uuid}", web::get().to(accounts::get))
    .route(
        "/accounts/{account_uuid}/billing-data",
        web::get().to(accounts::billing_data),
    )
    .route(
        "/accounts/{account_uuid}/addresses",
        web::get().to(accounts::addresses),
    )
    .route(
        "/accounts/{account_uuid}/addresses/{address_uuid}",
        web::get().to(accounts::address),
    )
    .route(
        "/accounts/{account_uuid}/metadata",
        web::get().to(accounts::metadata),
    );
}
