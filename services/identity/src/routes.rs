//! Identity's HTTP surface, every route of it (API.md, "Token", "Organisations" and
//! "Accounts"). Nothing else imports a feature's routes.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

use crate::{accounts, attachments, keys, onboardings, organisations, root, sso, tokens};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.public(|t| {
        t.shaped(Shape::OAuth, |t| {
            t.post("/oauth2/token", tokens::routes::grant);
        })
        .get("/.well-known/jwks.json", keys::routes::get)
        .get(
            "/.well-known/openid-configuration",
            sso::routes::configuration,
        )
        .get("/oauth2/authorize", sso::routes::authorize)
        .post("/oauth2/authorize", sso::routes::sign_in);
        t.hidden(|t| {
            t.get(sso::page::STYLESHEET_PATH, sso::routes::stylesheet);
        });
    })
    .get("/", root::routes::get)
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
    .post("/internal/onboardings", onboardings::routes::create)
    .post(
        "/internal/user-credentials",
        onboardings::routes::check_credentials,
    )
    .get(
        "/internal/user-emails/{email}",
        onboardings::routes::email_existence,
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

/// The service's part of the API description (crates/http/src/openapi): every routed
/// operation as its handler describes it, completed from the table above.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{
        accounts, attachments, keys, onboardings, organisations, root, routes, sso, tokens,
    };

    #[derive(OpenApi)]
    #[openapi(
        paths(
            tokens::routes::grant,
            root::routes::get,
            keys::routes::get,
            sso::routes::configuration,
            sso::routes::authorize,
            sso::routes::sign_in,
            organisations::routes::list,
            organisations::routes::search,
            organisations::routes::get,
            attachments::routes::organisation_addresses,
            attachments::routes::organisation_address,
            attachments::routes::organisation_metadata,
            onboardings::routes::create,
            onboardings::routes::check_credentials,
            onboardings::routes::email_existence,
            accounts::routes::list,
            accounts::routes::get,
            accounts::routes::billing_data,
            attachments::routes::account_addresses,
            attachments::routes::account_address,
            attachments::routes::account_metadata,
        ),
        tags(
            (name = "Token", description = "Access tokens for API clients"),
            (name = "Single sign-on", description = "OpenID Connect for partners' users"),
            (name = "Organisations", description = "The charities and companies using Coffer"),
            (name = "Accounts", description = "An organisation's accounts, which take payments"),
            (name = "Internal", description = "Calls between Coffer's services, for platform callers only"),
        )
    )]
    struct Described;

    /// Identity's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
