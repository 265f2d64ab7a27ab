//! What every Coffer service answers besides its own API: health, metrics, request ids,
//! and JSON errors for requests that match nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;

coffer_testkit::backend_tests! {
    async fn health_endpoints(backend) {
        let (app, _) = spawn(backend).await;
        let live = json(app.get_anonymous("/health/live").await).await;
        assert_eq!(live["status"], "ok");
        let ready = json(app.get_anonymous("/health/ready").await).await;
        assert_eq!(ready["status"], "ok");
        assert_eq!(ready["checks"]["identity"], "ok");
    }

    async fn metrics_count_requests_per_route(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        for _ in 0..3 {
            w.app.get(&format!("/organisations/{}", w.a.organisation), &token).await;
        }
        let res = w.app.get_anonymous("/metrics").await;
        assert_eq!(res.status(), 200);
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
        let text = res.text().await.unwrap();
        let line = text
            .lines()
            .find(|l| {
                l.starts_with("coffer_http_requests_total")
                    && l.contains("route=\"/organisations/{organisation_uuid}\"")
                    && l.contains("status=\"200\"")
            })
            .unwrap_or_else(|| panic!("no counter for the route in:\n{text}"));
        assert!(line.ends_with(" 3"), "{line}");
        // The outbox's figures, counted by the service's event wiring.
        for metric in ["coffer_outbox_pending_events", "coffer_outbox_oldest_pending_seconds"] {
            let line = text
                .lines()
                .find(|l| l.starts_with(metric) && l.contains("service=\"identity\""))
                .unwrap_or_else(|| panic!("no {metric} in:\n{text}"));
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<u64>().is_ok(), "{line}");
        }
        assert!(text.contains("coffer_http_request_duration_seconds_bucket{method=\"GET\",route=\"/organisations/{organisation_uuid}\""));
        assert!(text.contains("route=\"/oauth2/token\""));
    }

    async fn request_id_is_echoed_or_made(backend) {
        let (app, _) = spawn(backend).await;
        let res = app.http.get(app.url("/health/live")).header("x-request-id", "abc-123").send().await.unwrap();
        assert_eq!(res.headers()["x-request-id"], "abc-123");
        let res = app.get_anonymous("/health/live").await;
        let made = res.headers()["x-request-id"].to_str().unwrap();
        assert!(uuid::Uuid::parse_str(made).is_ok());
        // An id that could smuggle text into logs is replaced.
        let res = app.http.get(app.url("/health/live")).header("x-request-id", "a b\"c").send().await.unwrap();
        assert_ne!(res.headers()["x-request-id"], "a b\"c");
    }

    async fn unknown_routes_and_methods_answer_json(backend) {
        let (app, _) = spawn(backend).await;
        let res = app.http.get(app.url("/no/such/thing")).header("x-request-id", "r-1").send().await.unwrap();
        assert_eq!(res.status(), 404);
        let body = json(res).await;
        assert_eq!(body["request_id"], "r-1");
        assert_eq!(body["code"], "not_found");
        let res = app.http.delete(app.url("/oauth2/token")).send().await.unwrap();
        assert_eq!(res.status(), 405);
        let body = json(res).await;
        assert_eq!(body["http_code"], 405);
    }
}
