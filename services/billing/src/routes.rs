//! Billing's HTTP surface, in one table (API.md, "Subscription plans", "Subscriptions",
//! "Invoices", "Test clocks"). Error bodies take the shape SPEC.md shows for each
//! operation: shape A for most, shape C for the subscription state changes.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

use crate::{invoices, plans, subscriptions, test_clocks};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    for_plans(&mut t);
    for_subscriptions(&mut t);
    for_invoices(&mut t);
    for_test_clocks(&mut t);
    t
}

fn for_plans(t: &mut RouteTable) {
    use plans::routes as p;
    t.get("/subscription-plans", p::list)
        .post("/subscription-plans", p::create)
        .get("/subscription-plans/{plan_uuid}", p::get)
        .patch("/subscription-plans/{plan_uuid}", p::update);
}

fn for_subscriptions(t: &mut RouteTable) {
    use subscriptions::routes as s;
    t.shaped(Shape::A, |t| {
        t.post("/subscriptions", s::create)
            .get("/subscriptions/{subscription_uuid}", s::get)
            .patch("/subscriptions/{subscription_uuid}", s::update);
    })
    .post("/search/subscriptions", s::search)
    .shaped(Shape::C, |t| {
        t.post("/subscriptions/{subscription_uuid}/activate", s::activate)
            .post("/subscriptions/{subscription_uuid}/cancel", s::cancel)
            .post("/subscriptions/{subscription_uuid}/suspend", s::suspend);
    });
}

fn for_invoices(t: &mut RouteTable) {
    use invoices::routes as i;
    t.shaped(Shape::A, |t| {
        t.get("/subscriptions/{subscription_uuid}/invoices", i::list)
            .post("/subscriptions/{subscription_uuid}/invoices", i::create)
            .get(
                "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}",
                i::get,
            )
            .post(
                "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/close",
                i::close,
            )
            .post(
                "/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/charge-attempts",
                i::charge,
            );
    });
}

fn for_test_clocks(t: &mut RouteTable) {
    use test_clocks::routes as c;
    t.post("/test-clocks", c::create)
        .get("/test-clocks/{test_clock_uuid}", c::get)
        .delete("/test-clocks/{test_clock_uuid}", c::delete)
        .post("/test-clocks/{test_clock_uuid}/advance", c::advance);
}

/// The service's part of the API description (crates/http/src/openapi): every routed
/// operation as its handler describes it, completed from the table above.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{invoices, plans, routes, subscriptions, test_clocks};

    #[derive(OpenApi)]
    #[openapi(
        paths(
            plans::routes::list,
            plans::routes::create,
            plans::routes::get,
            plans::routes::update,
            subscriptions::routes::create,
            subscriptions::routes::get,
            subscriptions::routes::update,
            subscriptions::routes::search,
            subscriptions::routes::activate,
            subscriptions::routes::cancel,
            subscriptions::routes::suspend,
            invoices::routes::list,
            invoices::routes::create,
            invoices::routes::get,
            invoices::routes::close,
            invoices::routes::charge,
            test_clocks::routes::create,
            test_clocks::routes::get,
            test_clocks::routes::delete,
            test_clocks::routes::advance,
        ),
        tags(
            (name = "Subscription plans", description = "How subscriptions are dunned and announced"),
            (name = "Subscriptions", description = "Recurring donations"),
            (name = "Invoices", description = "What a subscription owes, and its charges"),
            (name = "Test clocks", description = "Time moved by hand, for testing subscriptions"),
        )
    )]
    struct Described;

    /// Billing's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
