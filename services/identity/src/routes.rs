//! Identity's HTTP surface, every route of it (API.md, "Token", "Organisations" and
//! "Accounts"), each at the path its handler's `#[utoipa::path]` states (`route!`).
//! Nothing else imports a feature's routes.

use coffer_http::openapi::RouteTable;
use coffer_http::{Shape, route};

use crate::{accounts, attachments, keys, onboardings, organisations, root, sso, tokens};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.public(|t| {
        t.shaped(Shape::OAuth, |t| {
            route!(t, tokens::routes::grant);
        });
        route!(t, keys::routes::get);
        route!(t, sso::routes::configuration);
        route!(t, sso::routes::authorize);
        route!(t, sso::routes::sign_in);
        t.hidden(|t| {
            t.get(sso::page::STYLESHEET_PATH, sso::routes::stylesheet);
        });
    });
    route!(t, root::routes::get);
    route!(t, organisations::routes::list);
    route!(t, organisations::routes::search);
    route!(t, organisations::routes::get);
    route!(t, attachments::routes::organisation_addresses);
    route!(t, attachments::routes::organisation_address);
    route!(t, attachments::routes::organisation_metadata);
    route!(t, onboardings::routes::create);
    route!(t, onboardings::routes::check_credentials);
    route!(t, onboardings::routes::email_existence);
    route!(t, accounts::routes::list);
    route!(t, accounts::routes::get);
    route!(t, accounts::routes::billing_data);
    route!(t, attachments::routes::account_addresses);
    route!(t, attachments::routes::account_address);
    route!(t, attachments::routes::account_metadata);
    t
}

/// The service's part of the API description (crates/http/src/openapi): every operation
/// the table above routes with `route!`, as its handler describes it.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::routes;

    #[derive(OpenApi)]
    #[openapi(
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
