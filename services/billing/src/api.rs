//! Billing's part of the API description (crates/http/src/openapi): the operations as
//! their handlers describe them, completed from the route table.

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
