//! Failed client authentications at the token endpoint are throttled per client id and per
//! source address, never the right secret; through HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

const WINDOW_SECS: i64 = 60;

fn limits(per_client: u32, per_address: u32) -> ThrottleSettings {
    ThrottleSettings {
        window_secs: WINDOW_SECS,
        per_client,
        per_address,
        ..ThrottleSettings::default()
    }
}

/// A token request with `client_id` and `secret` in a JSON body, from behind the proxy
/// that forwarded `forwarded_for` when there is one.
async fn grant(
    w: &World,
    client_id: &str,
    secret: &str,
    forwarded_for: Option<&str>,
) -> reqwest::Response {
    let mut req = w.app.http.post(w.app.url("/oauth2/token")).json(&json!({
        "grant_type": "client_credentials",
        "client_id": client_id,
        "client_secret": secret,
    }));
    if let Some(addresses) = forwarded_for {
        req = req.header("x-forwarded-for", addresses);
    }
    req.send().await.unwrap()
}

async fn status_of(w: &World, client_id: &str, secret: &str, forwarded_for: Option<&str>) -> u16 {
    grant(w, client_id, secret, forwarded_for)
        .await
        .status()
        .as_u16()
}

fn unknown_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

coffer_testkit::backend_tests! {
    async fn wrong_secrets_beyond_the_limit_are_429_with_retry_after(backend) {
        let w = world_with(backend, ServerOptions::default(), limits(3, 1_000)).await;
        let id = w.a.client.client_id.clone();
        for _ in 0..3 {
            let res = grant(&w, &id, "wrong", None).await;
            assert_eq!(res.status(), 401);
            assert!(res.headers().get("retry-after").is_none());
            assert_eq!(json(res).await["error"], "invalid_client");
        }
        // As a form body too: the throttle is about the client, not the encoding.
        let res = w.app.http.post(w.app.url("/oauth2/token")).form(&[
            ("grant_type", "client_credentials"),
            ("client_id", id.as_str()),
            ("client_secret", "wrong"),
        ]).send().await.unwrap();
        assert_eq!(res.status(), 429);
        assert_eq!(res.headers().get("retry-after").unwrap(), "60");
        let body: Value = json(res).await;
        assert_eq!(body["error"], "invalid_client");
        assert_eq!(body["http_code"], 429);
        assert_eq!(body["code"], "too_many_requests");
        assert!(body["error_description"].as_str().is_some_and(|d| d.contains("60 seconds")), "{body}");
        assert!(body["request_id"].as_str().is_some_and(|r| !r.is_empty()));

        w.app.clock.advance(time::Duration::seconds(15));
        let res = grant(&w, &id, "still wrong", None).await;
        assert_eq!(res.status(), 429);
        assert_eq!(res.headers().get("retry-after").unwrap(), "45");
    }

    async fn the_right_secret_is_answered_while_its_client_id_is_throttled(backend) {
        let w = world_with(backend, ServerOptions::default(), limits(2, 1_000)).await;
        let (id, secret) = (w.a.client.client_id.clone(), w.a.client.client_secret.clone());
        for expected in [401, 401, 429] {
            assert_eq!(status_of(&w, &id, "wrong", None).await, expected);
        }
        let res = grant(&w, &id, &secret, None).await;
        assert_eq!(res.status(), 200);
        let token = json(res).await["access_token"].as_str().unwrap().to_owned();
        let path = format!("/organisations/{}", w.a.organisation);
        assert_eq!(w.app.get(&path, &token).await.status(), 200);
        // HTTP Basic as well, and a success does not lift the throttle for wrong secrets.
        let res = w.app.http.post(w.app.url("/oauth2/token"))
            .basic_auth(&id, Some(&secret))
            .form(&[("grant_type", "client_credentials")])
            .send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(status_of(&w, &id, "wrong", None).await, 429);
        // Another client is not touched by this one's failures.
        assert_eq!(status_of(&w, &w.b.client.client_id, "wrong", None).await, 401);
    }

    async fn after_the_window_wrong_secrets_are_401_again(backend) {
        let w = world_with(backend, ServerOptions::default(), limits(2, 1_000)).await;
        let id = w.a.client.client_id.clone();
        for expected in [401, 401, 429] {
            assert_eq!(status_of(&w, &id, "wrong", None).await, expected);
        }
        w.app.clock.advance(time::Duration::seconds(WINDOW_SECS - 1));
        assert_eq!(status_of(&w, &id, "wrong", None).await, 429);
        w.app.clock.advance(time::Duration::seconds(1));
        for expected in [401, 401, 429] {
            assert_eq!(status_of(&w, &id, "wrong", None).await, expected);
        }
    }

    async fn an_unknown_client_id_is_throttled_like_a_known_one(backend) {
        let w = world_with(backend, ServerOptions::default(), limits(2, 1_000)).await;
        let id = unknown_id();
        for expected in [401, 401, 429] {
            assert_eq!(status_of(&w, &id, "anything", None).await, expected);
        }
        assert_eq!(status_of(&w, &unknown_id(), "anything", None).await, 401);
    }

    async fn an_address_is_throttled_across_client_ids(backend) {
        let w = world_with(backend, ServerOptions::default(), limits(1_000, 3)).await;
        for _ in 0..3 {
            assert_eq!(status_of(&w, &unknown_id(), "x", None).await, 401);
        }
        assert_eq!(status_of(&w, &unknown_id(), "x", None).await, 429);
        assert_eq!(status_of(&w, &w.b.client.client_id, "wrong", None).await, 429);
        // A client with its right secret is answered from the throttled address.
        let (id, secret) = (&w.a.client.client_id, &w.a.client.client_secret);
        assert_eq!(status_of(&w, id, secret, None).await, 200);
    }

    async fn forwarded_for_from_an_untrusted_peer_is_ignored(backend) {
        // No trusted proxies: the test's own connection from 127.0.0.1 is the client.
        let w = world_with(backend, ServerOptions::default(), limits(1_000, 3)).await;
        for n in 1..=3 {
            let spoofed = format!("203.0.113.{n}");
            assert_eq!(status_of(&w, &unknown_id(), "x", Some(&spoofed)).await, 401);
        }
        assert_eq!(status_of(&w, &unknown_id(), "x", Some("198.51.100.77")).await, 429);
        assert_eq!(status_of(&w, &unknown_id(), "x", None).await, 429);
    }

    async fn forwarded_for_from_a_trusted_peer_is_honoured(backend) {
        let options = ServerOptions {
            trusted_proxies: coffer_http::TrustedProxies::parse(["127.0.0.1"]).unwrap(),
            ..Default::default()
        };
        let w = world_with(backend, options, limits(1_000, 3)).await;
        let first = Some("203.0.113.1");
        // What the client wrote itself, left of the address the proxy appended, is ignored.
        let first_spoofing = Some("198.51.100.9, 203.0.113.1");
        for forwarded in [first, first_spoofing, first] {
            assert_eq!(status_of(&w, &unknown_id(), "x", forwarded).await, 401);
        }
        assert_eq!(status_of(&w, &unknown_id(), "x", first).await, 429);
        // Another forwarded address, and the proxy's own, are counted apart.
        assert_eq!(status_of(&w, &unknown_id(), "x", Some("203.0.113.2")).await, 401);
        assert_eq!(status_of(&w, &unknown_id(), "x", None).await, 401);
        // The proxy passing its own address on (a trusted entry) does not hide the client.
        assert_eq!(status_of(&w, &unknown_id(), "x", Some("203.0.113.1, 127.0.0.1")).await, 429);
    }
}
