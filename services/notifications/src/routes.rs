//! Notifications' HTTP surface, in one table (API.md, "Webhook Endpoint", "Event
//! Subscription", "Webhook Response"). Error bodies take shape B, as SPEC.md shows for a
//! blank endpoint.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

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
    t.get("/webhook-responses", d::list)
        .get("/webhook-responses/{webhook_response_uuid}", d::get)
        .post(
            "/webhook-responses/{webhook_response_uuid}/redeliver",
            d::redeliver,
        );
}

fn for_subscriptions(t: &mut RouteTable) {
    use subscriptions::routes as s;
    t.get("/event-subscriptions", s::list)
        .post("/event-subscriptions", s::create)
        .get("/event-subscriptions/{event_subscription_uuid}", s::get)
        .put("/event-subscriptions/{event_subscription_uuid}", s::replace)
        .patch("/event-subscriptions/{event_subscription_uuid}", s::update)
        .delete("/event-subscriptions/{event_subscription_uuid}", s::delete);
}

fn for_endpoints(t: &mut RouteTable) {
    use endpoints::routes as e;
    t.get("/webhooks", e::list)
        .post("/webhooks", e::create)
        .get("/webhooks/{webhook_uuid}", e::get)
        .put("/webhooks/{webhook_uuid}", e::replace)
        .patch("/webhooks/{webhook_uuid}", e::update)
        .delete("/webhooks/{webhook_uuid}", e::delete);
}

/// The service's part of the API description (crates/http/src/openapi): every routed
/// operation as its handler describes it, completed from the table above.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{deliveries, endpoints, routes, subscriptions};

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
            deliveries::routes::list,
            deliveries::routes::get,
            deliveries::routes::redeliver,
        ),
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
