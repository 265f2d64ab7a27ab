use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpResponse, HttpServer, web};
use coffer_auth::Verifier;
use coffer_error::ApiError;

use crate::body::BodyLimit;
use crate::body_deadline::BodyTimeout;
use crate::client_address::TrustedProxies;
use crate::config::ClientLimits;
use crate::connections_per_address::OpenConnections;
use crate::{
    Metrics, Module, error_shape, head_limits, health, metrics, query_error, request_id, tunnels,
};

/// Everything one HTTP server shares between its workers.
#[derive(Clone)]
pub struct AppContext {
    pub modules: Vec<Arc<dyn Module>>,
    pub verifier: Verifier,
    pub metrics: Metrics,
    pub body_limit: usize,
    /// Whose `X-Forwarded-For` the `ClientAddress` extractor believes.
    pub trusted_proxies: TrustedProxies,
    pub client_limits: ClientLimits,
}

async fn no_route() -> Result<HttpResponse, ApiError> {
    Err(ApiError::route_not_found())
}

/// The app: common endpoints and middleware around every module's routes, with the
/// description `described` ([`crate::openapi::document_of`] of the modules' parts).
pub fn build_app(
    ctx: AppContext,
    described: Arc<String>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let mut app = App::new()
        .app_data(web::Data::new(ctx.verifier.clone()))
        .app_data(web::Data::new(ctx.metrics.clone()))
        .app_data(web::Data::new(ctx.modules.clone()))
        .app_data(BodyLimit(ctx.body_limit))
        .app_data(BodyTimeout(ctx.client_limits.body_timeout))
        .app_data(ctx.trusted_proxies.clone())
        .app_data(
            web::QueryConfig::default().error_handler(|e, _| query_error::query_error(&e).into()),
        )
        .app_data(web::PathConfig::default().error_handler(|e, _| {
            ApiError::bad_request(format!("The path is not valid: {e}")).into()
        }))
        .route("/health/live", web::get().to(health::live))
        .route("/health/ready", web::get().to(health::ready))
        .route("/metrics", web::get().to(metrics::endpoint));
    app = app.configure(|cfg| crate::openapi::configure(cfg, described));
    for module in &ctx.modules {
        module.register_metrics(ctx.metrics.registry());
        let module = Arc::clone(module);
        app = app.configure(move |cfg| module.configure(cfg));
    }
    app.default_service(web::to(no_route))
        .wrap(from_fn(crate::body_deadline::middleware))
        .wrap(from_fn(head_limits::middleware))
        .wrap(from_fn(error_shape::middleware))
        .wrap(from_fn(metrics::middleware))
        .wrap(from_fn(request_id::middleware))
        // Around the middleware above, so that error bodies they write are compressed too;
        // only for a client that sends `Accept-Encoding` naming gzip.
        .wrap(actix_web::middleware::Compress::default())
        // A CONNECT's answer cannot be compressed and still framed (tunnels.rs).
        .wrap(from_fn(tunnels::middleware))
}

/// Starts serving on an already bound listener, so tests can bind port 0 first.
pub fn serve(
    listener: std::net::TcpListener,
    ctx: AppContext,
    workers: usize,
) -> std::io::Result<Server> {
    let open = OpenConnections::new(
        ctx.client_limits.connections_per_address,
        ctx.trusted_proxies.clone(),
    );
    let parts: Vec<_> = ctx.modules.iter().map(|m| m.api()).collect();
    let described = crate::openapi::document_of(&parts);
    Ok(
        HttpServer::new(move || build_app(ctx.clone(), Arc::clone(&described)))
            .on_connect(move |connection, data| open.on_connect(connection, data))
            .workers(workers.max(1))
            // Each worker has a runtime of its own, whose blocking threads (the requests'
            // database work) would otherwise be 512 over the cores; shared out instead.
            .worker_max_blocking_threads((crate::threads::MAX_BLOCKING / workers.max(1)).max(1))
            .listen(listener)?
            .run(),
    )
}
