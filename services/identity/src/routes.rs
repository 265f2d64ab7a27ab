//! Identity's HTTP surface, every route of it (API.md, "Token", "Organisations" and
//! "Accounts"). Nothing else imports a feature's routes.

use actix_web::web;
use coffer_http::Shape;

use crate::{accounts, attachments, keys, organisations, tokens};

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/oauth2/token")
            .app_data(Shape::OAuth)
            .route(web::post().to(tokens::routes::grant)),
    )
    .route("/.well-known/jwks.json", web::get().to(keys::routes::get))
    .route("/organisations", web::get().to(organisations::routes::list))
    .route(
        "/search/organisations",
        web::get().to(organisations::routes::search),
    )
    .route(
        "/organisations/{organisation_uuid}",
        web::get().to(organisations::routes::get),
    )
    .route(
        "/organisations/{organisation_uuid}/addresses",
        web::get().to(attachments::routes::organisation_addresses),
    )
    .route(
        "/organisations/{organisation_uuid}/addresses/{address_uuid}",
        web::get().to(attachments::routes::organisation_address),
    )
    .route(
        "/organisations/{organisation_uuid}/metadata",
        web::get().to(attachments::routes::organisation_metadata),
    )
    .route("/accounts", web::get().to(accounts::routes::list))
    .route(
        "/accounts/{account_uuid}",
        web::get().to(accounts::routes::get),
    )
    .route(
        "/accounts/{account_uuid}/billing-data",
        web::get().to(accounts::routes::billing_data),
    )
    .route(
        "/accounts/{account_uuid}/addresses",
        web::get().to(attachments::routes::account_addresses),
    )
    .route(
        "/accounts/{account_uuid}/addresses/{address_uuid}",
        web::get().to(attachments::routes::account_address),
    )
    .route(
        "/accounts/{account_uuid}/metadata",
        web::get().to(attachments::routes::account_metadata),
    );
}
