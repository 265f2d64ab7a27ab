//! Notifications' HTTP surface, in one table (API.md, "Webhook Endpoint", "Event
//! Subscription", "Webhook Response"). Error bodies take shape B, as SPEC.md shows for a
//! blank endpoint.

use coffer_http::openapi::RouteTable;
use coffer_http::{Shape, route};

use crate::{deliveries, endpoints, subscriptions};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.shaped(Shape::B, for_endpoints);
    t.shaped(Shape::B, for_subscriptions);
    t.shaped(Shape::B, for_responses);
    t
}

fn for_responses(t: &mut RouteTable) {
    use deliveries::routes as d;
    route!(t, d::list);
    route!(t, d::get);
    route!(t, d::redeliver);
}

fn for_subscriptions(t: &mut RouteTable) {
    use subscriptions::routes as s;
    route!(t, s::list);
    route!(t, s::create);
    route!(t, s::get);
    route!(t, s::replace);
    route!(t, s::update);
    route!(t, s::delete);
}

fn for_endpoints(t: &mut RouteTable) {
    use endpoints::routes as e;
    route!(t, e::list);
    route!(t, e::create);
    route!(t, e::get);
    route!(t, e::replace);
    route!(t, e::update);
    route!(t, e::delete);
}

/// The service's part of the API description (crates/http/src/openapi): every operation
/// the table above routes with `route!`, as its handler describes it.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{deliveries, routes};

    #[derive(OpenApi)]
    #[openapi(
        components(schemas(deliveries::routes::TryStatus)),
        tags((name = "Webhooks", description = "Where an organisation's events are delivered, signed")),
    )]
    struct Described;

    /// Notifications' operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
