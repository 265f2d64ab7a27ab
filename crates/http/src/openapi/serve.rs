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

/// Registers `/openapi.json` and `/docs` for `parts`.
pub fn configure(cfg: &mut web::ServiceConfig, parts: &[Part]) {
    let whole = describe(parts);
    // A description that cannot be written is a defect of the code, caught by its tests.
    let json = whole.to_json().unwrap_or_else(|_| "{}".to_owned());
    cfg.service(
        web::resource("/openapi.json")
            .app_data(web::Data::new(Described(Arc::new(json))))
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
    let parts = Arc::new(parts);
    Ok(actix_web::HttpServer::new(move || {
        let parts = Arc::clone(&parts);
        actix_web::App::new()
            .configure(move |cfg| configure(cfg, &parts))
            .route("/health/live", web::get().to(live))
            .route("/health/ready", web::get().to(live))
            .wrap(actix_web::middleware::Compress::default())
    })
    .workers(1)
    .listen(listener)?
    .run())
}
