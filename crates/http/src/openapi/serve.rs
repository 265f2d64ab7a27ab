//! `GET /openapi.json` and `GET /docs`: the description of a server's modules and a
//! browsable reference of it. The reference's scripts and styles are compiled into the
//! binary (utoipa-swagger-ui, vendored), so it works where nothing can be downloaded.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use utoipa_swagger_ui::{Config, SwaggerUi};

use super::{Part, describe};

/// The description, serialised once per server.
#[derive(Clone)]
struct Described(Arc<String>);

async fn document(described: web::Data<Described>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(described.0.as_str().to_owned())
}

async fn to_docs() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header(("Location", "/docs/"))
        .finish()
}

/// The description of `parts` as served: built once per server and shared by its
/// workers, each of which would otherwise hold a copy of its own.
pub fn document_of(parts: &[Part]) -> Arc<String> {
    // A description that cannot be written is a defect of the code, caught by its tests.
    Arc::new(
        describe(parts)
            .to_json()
            .unwrap_or_else(|_| "{}".to_owned()),
    )
}

/// Registers `/openapi.json` (serving `json`, from [`document_of`]) and `/docs`.
pub fn configure(cfg: &mut web::ServiceConfig, json: Arc<String>) {
    cfg.service(
        web::resource("/openapi.json")
            .app_data(web::Data::new(Described(json)))
            .route(web::get().to(document)),
    )
    .route("/docs", web::get().to(to_docs))
    .service(SwaggerUi::new("/docs/{_:.*}").config(Config::new(["/openapi.json"])));
}

async fn live() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"status":"ok"}"#)
}

/// A server of the description alone, for a deployment whose services each serve only
/// their own part: the gateway and the Ingress send `/openapi.json` and `/docs` here.
pub fn standalone(
    listener: std::net::TcpListener,
    parts: Vec<Part>,
) -> std::io::Result<actix_web::dev::Server> {
    let json = document_of(&parts);
    Ok(actix_web::HttpServer::new(move || {
        let json = Arc::clone(&json);
        actix_web::App::new()
            .configure(move |cfg| configure(cfg, json))
            .route("/health/live", web::get().to(live))
            .route("/health/ready", web::get().to(live))
            .wrap(actix_web::middleware::Compress::default())
    })
    .workers(1)
    .listen(listener)?
    .run())
}
