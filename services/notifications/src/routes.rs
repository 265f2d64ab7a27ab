//! Notifications' HTTP surface, in one table (API.md, "Webhook Endpoint"). Error bodies
//! take shape B, as SPEC.md shows for a blank endpoint.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

use crate::endpoints;

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.shaped(Shape::B, for_endpoints);
    t
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
