//! `route!`: a handler routed at the method and path its `#[utoipa::path]` states, and
//! described from that annotation alone, as a client and the description see it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use actix_web::test::{TestRequest, call_service, init_service, read_body_json};
use actix_web::{App, HttpResponse};
use coffer_http::openapi::{Part, RouteTable};
use coffer_http::route;
use serde_json::{Value, json};

mod things {
    use actix_web::{HttpResponse, web};

    /// A thing.
    #[derive(serde::Serialize, utoipa::ToSchema)]
    pub struct Thing {
        pub name: String,
    }

    /// Reads a thing.
    #[utoipa::path(get, path = "/things/{thing}", operation_id = "getThing", tag = "Things",
        params(("thing" = String, Path, description = "The thing")),
        responses((status = 200, description = "The thing", body = Thing)))]
    pub async fn get(thing: web::Path<String>) -> HttpResponse {
        HttpResponse::Ok().json(Thing {
            name: thing.into_inner(),
        })
    }

    /// Forgets a thing.
    #[utoipa::path(delete, path = "/things/{thing}", operation_id = "deleteThing", tag = "Things",
        params(("thing" = String, Path, description = "The thing")),
        responses((status = 204, description = "Forgotten")))]
    pub async fn delete(_thing: web::Path<String>) -> HttpResponse {
        HttpResponse::NoContent().finish()
    }

    /// A page about a thing, annotated but added among the hidden routes.
    #[derive(serde::Serialize, utoipa::ToSchema)]
    pub struct Archive {
        pub pages: u32,
    }

    #[utoipa::path(get, path = "/archive", operation_id = "getArchive", tag = "Things",
        responses((status = 200, description = "The archive", body = Archive)))]
    pub async fn archived() -> HttpResponse {
        HttpResponse::Ok().json(Archive { pages: 1 })
    }
}

/// A page for people: routed by path, kept out of the description.
async fn page() -> HttpResponse {
    HttpResponse::Ok().body("a page")
}

fn table() -> RouteTable {
    let mut t = RouteTable::new();
    route!(t, things::get);
    route!(t, things::delete);
    t.hidden(|t| {
        t.get("/page", page);
        route!(t, things::archived);
    });
    t
}

#[actix_web::test]
async fn a_handler_is_routed_where_its_description_says() {
    let app = init_service(App::new().configure(|cfg| table().register(cfg))).await;

    let got = call_service(&app, TestRequest::get().uri("/things/lamp").to_request()).await;
    assert_eq!(got.status(), 200);
    let body: Value = read_body_json(got).await;
    assert_eq!(body, json!({"name": "lamp"}));

    let gone = call_service(&app, TestRequest::delete().uri("/things/lamp").to_request()).await;
    assert_eq!(gone.status(), 204);

    // Both methods share one resource, so another method is a 405, not a 404.
    let put = call_service(&app, TestRequest::put().uri("/things/lamp").to_request()).await;
    assert_eq!(put.status(), 405);

    let page = call_service(&app, TestRequest::get().uri("/page").to_request()).await;
    assert_eq!(page.status(), 200);
    let archive = call_service(&app, TestRequest::get().uri("/archive").to_request()).await;
    assert_eq!(archive.status(), 200);
}

#[test]
fn the_description_comes_from_the_table_alone() {
    let info = utoipa::openapi::Info::new("things", "0");
    let doc = utoipa::openapi::OpenApi::new(info, utoipa::openapi::Paths::new());
    let part = Part::new(doc, &table());
    let whole: Value = serde_json::to_value(&part.doc).unwrap();

    let item = &whole["paths"]["/things/{thing}"];
    assert_eq!(item["get"]["operationId"], "getThing");
    assert_eq!(item["get"]["tags"], json!(["Things"]));
    assert_eq!(item["delete"]["operationId"], "deleteThing");
    // The schema the handler names is collected with it.
    assert!(
        whole["components"]["schemas"]["Thing"].is_object(),
        "{whole}"
    );
    // The hidden routes are routed but not described, even one with an annotation.
    assert!(whole["paths"].get("/page").is_none());
    assert!(whole["paths"].get("/archive").is_none(), "{whole}");
    assert!(whole["components"]["schemas"].get("Archive").is_none());
    let routed: Vec<_> = part
        .operations
        .iter()
        .map(|o| (o.method.as_str().to_owned(), o.path.clone(), o.hidden))
        .collect();
    assert_eq!(
        routed,
        vec![
            ("GET".to_owned(), "/things/{thing}".to_owned(), false),
            ("DELETE".to_owned(), "/things/{thing}".to_owned(), false),
            ("GET".to_owned(), "/page".to_owned(), true),
            ("GET".to_owned(), "/archive".to_owned(), true),
        ]
    );
}
