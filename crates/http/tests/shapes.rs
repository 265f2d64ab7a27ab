//! The three SPEC.md error shapes as a client receives them, from routes that declare them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_error::{ApiError, FieldError, Shape};
use coffer_http::{Json, Module, ReadyFuture};
use coffer_testkit::{Backend, TestApp};
use serde_json::{Value, json};

struct Probe;

async fn invalid() -> Result<HttpResponse, ApiError> {
    Err(ApiError::validation(vec![
        FieldError::not_valid("email", "is not an e-mail address"),
        FieldError::not_blank("name"),
    ]))
}

async fn guarded(_caller: Caller) -> Result<HttpResponse, ApiError> {
    Err(ApiError::conflict("already active"))
}

async fn boom() -> Result<HttpResponse, ApiError> {
    Err(ApiError::internal("password=hunter2 at db.internal:5432"))
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Body {
    amount: coffer_model::money::Money,
}

async fn echo(body: Json<Body>) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "value": body.0.amount.value }))
}

impl Module for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }

    fn api(&self) -> coffer_http::openapi::Part {
        let info = utoipa::openapi::Info::new("probe", "0");
        let doc = utoipa::openapi::OpenApi::new(info, utoipa::openapi::Paths::new());
        coffer_http::openapi::Part::new(doc, &coffer_http::openapi::RouteTable::new())
    }

    fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.service(
            web::resource("/a")
                .app_data(Shape::A)
                .route(web::post().to(invalid)),
        )
        .service(
            web::resource("/b")
                .app_data(Shape::B)
                .route(web::post().to(invalid)),
        )
        .service(
            web::resource("/c")
                .app_data(Shape::C)
                .route(web::post().to(guarded)),
        )
        .service(
            web::resource("/a-guarded")
                .app_data(Shape::A)
                .route(web::post().to(guarded)),
        )
        .service(web::resource("/boom").route(web::get().to(boom)))
        .service(
            web::resource("/json")
                .app_data(Shape::A)
                .route(web::post().to(echo)),
        );
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(async { Ok(()) })
    }
}

async fn spawn() -> TestApp {
    TestApp::spawn(Backend::Sqlite, &[], |_| async {
        vec![Arc::new(Probe) as Arc<dyn Module>]
    })
    .await
}

async fn send(app: &TestApp, req: reqwest::RequestBuilder) -> (u16, Value) {
    let res = req.header("x-request-id", "req-1").send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "application/json");
    assert_eq!(res.headers()["x-request-id"], "req-1");
    let _ = app;
    (res.status().as_u16(), res.json().await.unwrap())
}

#[tokio::test]
async fn shape_a_and_b_list_each_property_with_the_request_id() {
    let app = spawn().await;
    let (status, a) = send(&app, app.http.post(app.url("/a"))).await;
    assert_eq!(status, 400);
    assert_eq!(
        a,
        json!({"request_id": "req-1", "error": {"http_code": 400, "code": "bad_request", "message": [
            {"code": "error.validation.not_valid", "property": "email", "message": "is not an e-mail address"},
            {"code": "error.validation.not_blank", "property": "name", "message": "must not be blank"},
        ]}})
    );
    let (_, b) = send(&app, app.http.post(app.url("/b"))).await;
    assert_eq!(b["request_id"], "req-1");
    assert_eq!(b["http_code"], 400);
    assert_eq!(b["code"], "bad_request");
    assert_eq!(b["errors"], a["error"]["message"]);
}

#[tokio::test]
async fn unauthenticated_is_shape_c_everywhere_and_conflict_follows_the_route() {
    let app = spawn().await;
    for path in ["/c", "/a-guarded"] {
        let (status, body) = send(&app, app.http.post(app.url(path))).await;
        assert_eq!(status, 401);
        assert_eq!(body, json!({"message": "Authentication Required"}));
    }
    let token = app.token_for(&[]);
    let (status, c) = send(&app, app.http.post(app.url("/c")).bearer_auth(&token)).await;
    assert_eq!((status, c), (409, json!({"message": "already active"})));
    let (status, a) = send(
        &app,
        app.http.post(app.url("/a-guarded")).bearer_auth(&token),
    )
    .await;
    assert_eq!(status, 409);
    assert_eq!(a["error"]["code"], "conflict");
    assert_eq!(a["error"]["message"][0]["message"], "already active");
}

#[tokio::test]
async fn a_500_says_nothing_internal() {
    let app = spawn().await;
    let (status, body) = send(&app, app.http.get(app.url("/boom"))).await;
    assert_eq!(status, 500);
    assert!(!body.to_string().contains("hunter2"));
    assert!(!body.to_string().contains("db.internal"));
    assert_eq!(body["errors"][0]["message"], "Internal Server Error");
}

#[tokio::test]
async fn json_bodies_fail_by_property_in_the_route_shape() {
    let app = spawn().await;
    let (status, ok) = send(
        &app,
        app.http
            .post(app.url("/json"))
            .json(&json!({"amount": {"value": 1050, "currency": "CHF"}})),
    )
    .await;
    assert_eq!((status, ok), (200, json!({"value": 1050})));
    let cases = [
        (
            json!({"amount": {"value": "10.50", "currency": "CHF"}}),
            "amount.value",
        ),
        (
            json!({"amount": {"value": "1050", "currency": "XYZ"}}),
            "amount.currency",
        ),
        (json!({"amount": {"value": "1050"}}), "amount.currency"),
        (json!({}), "amount"),
    ];
    for (body, property) in cases {
        let (status, err) = send(&app, app.http.post(app.url("/json")).json(&body)).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            err["error"]["message"][0]["property"], property,
            "{body}: {err}"
        );
    }
    let (status, err) = send(
        &app,
        app.http
            .post(app.url("/json"))
            .header("content-type", "text/plain")
            .body("{}"),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        err["error"]["message"][0]["message"]
            .as_str()
            .unwrap()
            .contains("application/json")
    );
}

#[tokio::test]
async fn heads_past_the_gateways_limits_are_431_in_shape() {
    let app = spawn().await;
    let token = app.token_for(&[]);
    // Within the limits: a 7 KiB header, and 24 KiB of headers in all.
    let mut fits = app
        .http
        .post(app.url("/c"))
        .bearer_auth(&token)
        .header("x-big", "a".repeat(7 * 1024));
    for i in 0..16 {
        fits = fits.header(format!("x-pad-{i}"), "b".repeat(1024));
    }
    let (status, _) = send(&app, fits).await;
    assert_eq!(status, 409);

    let one_long_line = app
        .http
        .post(app.url("/c"))
        .bearer_auth(&token)
        .header("x-big", "a".repeat(9 * 1024));
    let mut many_lines = app.http.post(app.url("/a")).bearer_auth(&token);
    for i in 0..40 {
        many_lines = many_lines.header(format!("x-pad-{i}"), "b".repeat(1024));
    }
    let long_url = app
        .http
        .get(app.url(&format!("/boom?q={}", "c".repeat(9 * 1024))));
    for req in [one_long_line, many_lines, long_url] {
        let (status, body) = send(&app, req).await;
        assert_eq!(status, 431);
        let message = body.to_string();
        assert!(
            message.contains("The request headers are too large"),
            "{message}"
        );
    }
}

/// A response read off a socket as a client's HTTP/1.1 parser reads it: the head, then
/// exactly the body its framing declares.
struct Framed {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Bytes the server sent past the declared body: none, in a well-formed response.
    stray: Vec<u8>,
}

impl Framed {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` as bytes and reads what comes back until the server closes or stays
/// quiet, then frames it by its Content-Length or chunked encoding, strictly: a response
/// whose body does not match its framing panics with the bytes received.
async fn raw_exchange(app: &TestApp, request: &str) -> Framed {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = app.base_url.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let read =
            tokio::time::timeout(std::time::Duration::from_secs(2), socket.read(&mut buf)).await;
        match read {
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => panic!("reading the response: {e}"),
        }
    }
    let shown = String::from_utf8_lossy(&received).into_owned();
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(&received) {
        Ok(httparse::Status::Complete(n)) => n,
        other => panic!("not an HTTP/1.1 response head ({other:?}): {shown:?}"),
    };
    assert_eq!(response.version, Some(1), "{shown:?}");
    let status = response.code.unwrap();
    let headers: Vec<(String, String)> = response
        .headers
        .iter()
        .map(|h| {
            let value = String::from_utf8(h.value.to_vec()).unwrap();
            (h.name.to_ascii_lowercase(), value)
        })
        .collect();
    let named = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let rest = &received[head_len..];
    let (body, stray) = match (named("transfer-encoding"), named("content-length")) {
        (Some(te), None) if te.eq_ignore_ascii_case("chunked") => {
            dechunk(rest).unwrap_or_else(|| panic!("declared chunked, not chunked: {shown:?}"))
        }
        (None, Some(length)) => {
            let length: usize = length.parse().unwrap();
            assert!(
                rest.len() >= length,
                "a body shorter than declared: {shown:?}"
            );
            (rest[..length].to_vec(), rest[length..].to_vec())
        }
        framing => panic!("no single framing ({framing:?}): {shown:?}"),
    };
    Framed {
        status,
        headers,
        body,
        stray,
    }
}

/// A chunked body's content and what follows its last chunk; None when it is not chunked.
fn dechunk(mut rest: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return rest.strip_prefix(b"\r\n").map(|r| (body, r.to_vec()));
        }
        if rest.len() < size + 2 || &rest[size..size + 2] != b"\r\n" {
            return None;
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// CONNECT asks for a tunnel, and HTTP/1.1 servers treat what follows it on the connection
/// as the tunnel's bytes; actix then writes a streamed (compressed) body unframed under a
/// `transfer-encoding: chunked` header, which no client can read. Coffer tunnels nothing, so
/// a CONNECT is answered as any method a path does not take, framed, whatever the client
/// accepts.
#[tokio::test]
async fn connect_is_answered_in_shape_and_framed_even_when_gzip_is_accepted() {
    let app = spawn().await;
    let cases = [
        ("/a", 405, "method_not_allowed"),
        ("/nowhere", 404, "not_found"),
        ("example.com:443", 404, "not_found"),
    ];
    for (target, status, code) in cases {
        let request = format!(
            "CONNECT {target} HTTP/1.1\r\nHost: example.com:443\r\n\
             Accept-Encoding: gzip, deflate, br, zstd\r\nX-Request-Id: req-1\r\n\r\n"
        );
        let answer = raw_exchange(&app, &request).await;
        let body: Value = serde_json::from_slice(&answer.body)
            .unwrap_or_else(|e| panic!("{target}: {e}: {:?} {:?}", answer.headers, answer.body));
        assert_eq!(answer.status, status, "{target}: {body}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        assert_eq!(answer.header("x-request-id"), Some("req-1"));
        assert!(answer.stray.is_empty(), "{target}: {:?}", answer.stray);
        // What the client sent after its CONNECT was the tunnel's: the connection ends,
        // and the client knows to open another.
        assert_eq!(answer.header("connection"), Some("close"), "{target}");
        let code_at = if status == 405 {
            &body["error"]["code"]
        } else {
            &body["code"]
        };
        assert_eq!(code_at, code, "{target}: {body}");
    }

    // Other methods keep their compression.
    let answer = raw_exchange(
        &app,
        "GET /boom HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(answer.status, 500);
    assert_eq!(answer.header("content-encoding"), Some("gzip"));
    assert!(answer.stray.is_empty());
}
