//! Identity's part of the API description (crates/http/src/openapi): the operations as
//! their handlers describe them, completed from the route table.

use coffer_http::openapi::Part;
use utoipa::OpenApi;

use crate::{accounts, attachments, keys, organisations, routes, tokens};

#[derive(OpenApi)]
#[openapi(
    paths(
        tokens::routes::grant,
        keys::routes::get,
        organisations::routes::list,
        organisations::routes::search,
        organisations::routes::get,
        attachments::routes::organisation_addresses,
        attachments::routes::organisation_address,
        attachments::routes::organisation_metadata,
        accounts::routes::list,
        accounts::routes::get,
        accounts::routes::billing_data,
        attachments::routes::account_addresses,
        attachments::routes::account_address,
        attachments::routes::account_metadata,
    ),
    tags(
        (name = "Token", description = "Access tokens for API clients"),
        (name = "Organisations", description = "The charities and companies using Coffer"),
        (name = "Accounts", description = "An organisation's accounts, which take payments"),
    )
)]
struct Described;

/// Identity's operations, described.
pub fn part() -> Part {
    Part::new(Described::openapi(), &routes::table())
}
