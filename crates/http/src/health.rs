use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde_json::{Map, Value, json};

use crate::Module;

pub(crate) async fn live() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// 200 when every module can serve, 503 naming the ones that cannot.
pub(crate) async fn ready(modules: web::Data<Vec<Arc<dyn Module>>>) -> HttpResponse {
    let mut checks = Map::new();
    let mut all_ok = true;
    for module in modules.iter() {
        let state = match module.ready().await {
            Ok(()) => "ok".to_owned(),
            Err(reason) => {
                all_ok = false;
                reason
            }
        };
        checks.insert(module.name().to_owned(), Value::String(state));
    }
    let body = json!({ "status": if all_ok { "ok" } else { "unavailable" }, "checks": checks });
    if all_ok {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
