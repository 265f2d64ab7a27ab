//! Billing's HTTP surface, in one table (API.md, "Subscription plans", "Subscriptions",
//! "Invoices", "Test clocks"). Error bodies take the shape SPEC.md shows for each
//! operation: shape A for most, shape C for the subscription state changes.

use coffer_http::openapi::RouteTable;
use coffer_http::{Shape, route};

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
    route!(t, p::list);
    route!(t, p::create);
    route!(t, p::get);
    route!(t, p::update);
}

fn for_subscriptions(t: &mut RouteTable) {
    use subscriptions::routes as s;
    t.shaped(Shape::A, |t| {
        route!(t, s::create);
        route!(t, s::get);
        route!(t, s::update);
    });
    route!(t, s::search);
    t.shaped(Shape::C, |t| {
        route!(t, s::activate);
        route!(t, s::cancel);
        route!(t, s::suspend);
    });
}

fn for_invoices(t: &mut RouteTable) {
    use invoices::routes as i;
    t.shaped(Shape::A, |t| {
        route!(t, i::list);
        route!(t, i::create);
        route!(t, i::get);
        route!(t, i::close);
        route!(t, i::charge);
    });
}

fn for_test_clocks(t: &mut RouteTable) {
    use test_clocks::routes as c;
    route!(t, c::create);
    route!(t, c::get);
    route!(t, c::delete);
    route!(t, c::advance);
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
