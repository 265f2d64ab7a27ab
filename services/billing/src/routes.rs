//! Billing's HTTP surface, in one table (API.md, "Subscription plans", "Subscriptions",
//! "Invoices", "Test clocks"). Error bodies take the shape SPEC.md shows for each
//! operation: shape A for most, shape C for the subscription state changes.

use actix_web::web;
use coffer_http::Shape;

use crate::{invoices, plans, subscriptions, test_clocks};

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    for_plans(cfg);
    for_subscriptions(cfg);
    for_invoices(cfg);
    for_test_clocks(cfg);
}

fn for_plans(cfg: &mut web::ServiceConfig) {
    use plans::routes as p;
    cfg.route("/subscription-plans", web::get().to(p::list))
        .route("/subscription-plans", web::post().to(p::create))
        .route("/subscription-plans/{plan_uuid}", web::get().to(p::get))
        .route(
            "/subscription-plans/{plan_uuid}",
            web::patch().to(p::update),
        );
}

fn for_subscriptions(cfg: &mut web::ServiceConfig) {
    use subscriptions::routes as s;
    cfg.service(
        web::resource("/subscriptions")
            .app_data(Shape::A)
            .route(web::post().to(s::create)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}")
            .app_data(Shape::A)
            .route(web::get().to(s::get))
            .route(web::patch().to(s::update)),
    )
    .route("/search/subscriptions", web::post().to(s::search))
    .service(
        web::resource("/subscriptions/{subscription_uuid}/activate")
            .app_data(Shape::C)
            .route(web::post().to(s::activate)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/cancel")
            .app_data(Shape::C)
            .route(web::post().to(s::cancel)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/suspend")
            .app_data(Shape::C)
            .route(web::post().to(s::suspend)),
    );
}

fn for_invoices(cfg: &mut web::ServiceConfig) {
    use invoices::routes as i;
    cfg.service(
        web::resource("/subscriptions/{subscription_uuid}/invoices")
            .app_data(Shape::A)
            .route(web::get().to(i::list))
            .route(web::post().to(i::create)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}")
            .app_data(Shape::A)
            .route(web::get().to(i::get)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/close")
            .app_data(Shape::A)
            .route(web::post().to(i::close)),
    )
    .service(
        web::resource("/subscriptions/{subscription_uuid}/invoices/{invoice_uuid}/charge-attempts")
            .app_data(Shape::A)
            .route(web::post().to(i::charge)),
    );
}

fn for_test_clocks(cfg: &mut web::ServiceConfig) {
    use test_clocks::routes as c;
    cfg.route("/test-clocks", web::post().to(c::create))
        .route("/test-clocks/{test_clock_uuid}", web::get().to(c::get))
        .route(
            "/test-clocks/{test_clock_uuid}",
            web::delete().to(c::delete),
        )
        .route(
            "/test-clocks/{test_clock_uuid}/advance",
            web::post().to(c::advance),
        );
}
