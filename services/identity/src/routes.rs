//! Identity's HTTP surface, every route of it (API.md, "Token", "Organisations" and
//! "Accounts"). Nothing else imports a feature's routes.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

use crate::{accounts, attachments, keys, organisations, tokens};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.public(|t| {
        t.shaped(Shape::OAuth, |t| {
            t.post("/oauth2/token", tokens::routes::grant);
        })
        .get("/.well-known/jwks.json", keys::routes::get);
    })
    .get("/organisations", organisations::routes::list)
    .get("/search/organisations", organisations::routes::search)
    .get(
        "/organisations/{organisation_uuid}",
        organisations::routes::get,
    )
    .get(
        "/organisations/{organisation_uuid}/addresses",
        attachments::routes::organisation_addresses,
    )
    .get(
        "/organisations/{organisation_uuid}/addresses/{address_uuid}",
        attachments::routes::organisation_address,
    )
    .get(
        "/organisations/{organisation_uuid}/metadata",
        attachments::routes::organisation_metadata,
    )
    .get("/accounts", accounts::routes::list)
    .get("/accounts/{account_uuid}", accounts::routes::get)
    .get(
        "/accounts/{account_uuid}/billing-data",
        accounts::routes::billing_data,
    )
    .get(
        "/accounts/{account_uuid}/addresses",
        attachments::routes::account_addresses,
    )
    .get(
        "/accounts/{account_uuid}/addresses/{address_uuid}",
        attachments::routes::account_address,
    )
    .get(
        "/accounts/{account_uuid}/metadata",
        attachments::routes::account_metadata,
    );
    t
}
