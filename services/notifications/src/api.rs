//! Notifications' part of the API description (crates/http/src/openapi): the operations as
//! their handlers describe them, completed from the route table.

use coffer_http::openapi::Part;
use utoipa::OpenApi;

use crate::{endpoints, routes, subscriptions};

#[derive(OpenApi)]
#[openapi(
    paths(
        endpoints::routes::list,
        endpoints::routes::create,
        endpoints::routes::get,
        endpoints::routes::replace,
        endpoints::routes::update,
        endpoints::routes::delete,
        subscriptions::routes::list,
        subscriptions::routes::create,
        subscriptions::routes::get,
        subscriptions::routes::replace,
        subscriptions::routes::update,
        subscriptions::routes::delete,
    ),
    tags((name = "Webhooks", description = "Where an organisation's events are delivered, signed")),
)]
struct Described;

/// Notifications' operations, described.
pub fn part() -> Part {
    Part::new(Described::openapi(), &routes::table())
}
