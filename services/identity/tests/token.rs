//! The token endpoint and the tokens it grants, through HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn post_token(w: &World, body: reqwest::RequestBuilder) -> (u16, Value) {
    let _ = w;
    let res = body.send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

/// A client-credentials grant of the first client's, in a JSON body.
async fn json_grant(w: &World) -> (u16, Value) {
    let req = w.app.http.post(w.app.url("/oauth2/token")).json(&json!({
        "grant_type": "client_credentials",
        "client_id": w.a.client.client_id,
        "client_secret": w.a.client.client_secret,
    }));
    post_token(w, req).await
}

coffer_testkit::backend_tests! {
    async fn json_body_grants_a_bearer_token(backend) {
        let w = world(backend).await;
        let (status, body) = json_grant(&w).await;
        assert_eq!(status, 200);
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["expires_in"], 3600);
        let token = body["access_token"].as_str().unwrap();
        assert_eq!(token.split('.').count(), 3, "a compact JWS");
        let res = w.app.get(&format!("/organisations/{}", w.a.organisation), token).await;
        assert_eq!(res.status(), 200);
    }

    async fn the_root_tells_a_client_whether_its_base_url_and_token_are_right(backend) {
        let w = world(backend).await;
        let (_, body) = json_grant(&w).await;
        let token = body["access_token"].as_str().unwrap();
        // As the n8n RaiseNow node tests its credentials: GET {base}/ with the token.
        let res = w.app.get("/", token).await;
        assert_eq!(res.status(), 200);
        let root = json(res).await;
        assert_eq!(root["name"], "Coffer");
        assert_eq!(root["api_version"], "1.0.0");
        assert_eq!(root["client_id"], w.a.client.client_id.as_str());
        let res = w.app.http.get(w.app.url("/")).send().await.unwrap();
        assert_eq!(res.status(), 401, "no token");
        let res = w.app.get("/", "not-a-token").await;
        assert_eq!(res.status(), 401, "a forged token");
    }

    async fn form_body_grants_a_token(backend) {
        let w = world(backend).await;
        let req = w.app.http.post(w.app.url("/oauth2/token")).form(&[
            ("grant_type", "client_credentials"),
            ("client_id", w.a.client.client_id.as_str()),
            ("client_secret", w.a.client.client_secret.as_str()),
        ]);
        let (status, body) = post_token(&w, req).await;
        assert_eq!(status, 200);
        assert_eq!(body["token_type"], "Bearer");
        assert!(body["access_token"].as_str().unwrap().len() > 100);
    }

    async fn basic_auth_credentials_are_accepted(backend) {
        let w = world(backend).await;
        let req = w.app.http.post(w.app.url("/oauth2/token"))
            .basic_auth(&w.a.client.client_id, Some(&w.a.client.client_secret))
            .form(&[("grant_type", "client_credentials")]);
        let (status, _) = post_token(&w, req).await;
        assert_eq!(status, 200);
    }

    async fn missing_grant_type_is_400_naming_it(backend) {
        let w = world(backend).await;
        let req = w.app.http.post(w.app.url("/oauth2/token")).json(&json!({
            "client_id": w.a.client.client_id,
            "client_secret": w.a.client.client_secret,
        }));
        let (status, body) = post_token(&w, req).await;
        assert_eq!(status, 400);
        assert_eq!(body["error"], "invalid_request");
        assert_eq!(body["http_code"], 400);
        assert_eq!(body["code"], "bad_request");
        assert_eq!(body["errors"][0]["property"], "grant_type");
        assert_eq!(body["errors"][0]["code"], "error.validation.not_null");
        assert!(body["request_id"].as_str().is_some_and(|r| !r.is_empty()));
    }

    async fn unknown_grant_type_is_400_unsupported(backend) {
        let w = world(backend).await;
        let req = w.app.http.post(w.app.url("/oauth2/token")).form(&[
            ("grant_type", "password"),
            ("client_id", w.a.client.client_id.as_str()),
            ("client_secret", w.a.client.client_secret.as_str()),
        ]);
        let (status, body) = post_token(&w, req).await;
        assert_eq!(status, 400);
        assert_eq!(body["error"], "unsupported_grant_type");
        assert_eq!(body["errors"][0]["property"], "grant_type");
    }

    async fn malformed_bodies_are_400_in_oauth_shape(backend) {
        let w = world(backend).await;
        let url = w.app.url("/oauth2/token");
        let cases = [
            w.app.http.post(&url).header("content-type", "application/json").body("{\"grant_type\": "),
            w.app.http.post(&url).header("content-type", "text/plain").body("grant_type=client_credentials"),
            w.app.http.post(&url).header("content-type", "application/json").body(format!("{{\"pad\":\"{}\"}}", "x".repeat(300 * 1024))),
            w.app.http.post(&url).json(&json!({"grant_type": 5, "client_id": "x", "client_secret": "y"})),
            // Nested deeper than the parser follows, in an ignored field and in a known one.
            w.app.http.post(&url).header("content-type", "application/json").body(format!("{{\"pad\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000))),
            w.app.http.post(&url).header("content-type", "application/json").body(format!("{{\"grant_type\":{}{}}}", "{\"a\":".repeat(200), "}".repeat(200))),
        ];
        for req in cases {
            let (status, body) = post_token(&w, req).await;
            // Every oversize body is 413 (docs/errors.md), in the token endpoint's OAuth form.
            let expected = if body["code"] == "payload_too_large" { 413 } else { 400 };
            assert_eq!(status, expected, "{body}");
            assert_eq!(body["error"], "invalid_request", "{body}");
            assert!(body["error_description"].as_str().is_some_and(|d| !d.is_empty()));
        }
    }

    async fn wrong_secret_and_unknown_client_are_401(backend) {
        let w = world(backend).await;
        for (id, secret) in [
            (w.a.client.client_id.clone(), "not-the-secret".to_owned()),
            (uuid::Uuid::new_v4().to_string(), w.a.client.client_secret.clone()),
            (w.a.client.client_id.clone(), w.b.client.client_secret.clone()),
        ] {
            let req = w.app.http.post(w.app.url("/oauth2/token")).json(&json!({
                "grant_type": "client_credentials", "client_id": id, "client_secret": secret,
            }));
            let (status, body) = post_token(&w, req).await;
            assert_eq!(status, 401);
            assert_eq!(body["error"], "invalid_client");
        }
    }

    async fn expired_token_is_401(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        let path = format!("/organisations/{}", w.a.organisation);
        assert_eq!(w.app.get(&path, &token).await.status(), 200);
        w.app.clock.advance(time::Duration::seconds(3600));
        let res = w.app.get(&path, &token).await;
        assert_eq!(res.status(), 401);
        assert_eq!(json(res).await, json!({"message": "Authentication Required"}));
    }

    async fn token_dated_ahead_of_the_clock_is_401_beyond_the_leeway(backend) {
        let w = world(backend).await;
        let path = format!("/organisations/{}", w.a.organisation);
        let leeway = coffer_auth::CLOCK_SKEW_LEEWAY_SECS;
        let now = w.app.claims_for(&[]).iat;
        // Signed with the key the service trusts: only the dates are wrong.
        let dated = |iat: i64, nbf: Option<i64>| {
            let mut claims = w.app.claims_for(&[w.a.organisation]);
            claims.iat = iat;
            claims.nbf = nbf;
            w.app.sign(&claims)
        };
        for (token, expected) in [
            (dated(now + leeway + 1, None), 401),
            (dated(now, Some(now + leeway + 1)), 401),
            (dated(now + leeway, None), 200),
            (dated(now, Some(now + leeway)), 200),
        ] {
            let res = w.app.get(&path, &token).await;
            assert_eq!(res.status(), expected);
            if expected == 401 {
                assert_eq!(json(res).await, json!({"message": "Authentication Required"}));
            }
        }
    }

    async fn tampered_and_foreign_tokens_are_401(backend) {
        let w = world(backend).await;
        let token = w.token(&w.b.client).await;
        let parts: Vec<&str> = token.split('.').collect();
        // Claim tenant A's organisation while keeping B's signature.
        let mut claims: Value = serde_json::from_slice(&base64_url_decode(parts[1])).unwrap();
        claims["organisations"] = json!([w.a.organisation]);
        let forged = format!("{}.{}.{}", parts[0], base64_url_encode(&serde_json::to_vec(&claims).unwrap()), parts[2]);
        let path = format!("/organisations/{}", w.a.organisation);
        for bad in [forged.as_str(), "not-a-jwt", &format!("{}.{}.", parts[0], parts[1])] {
            let res = w.app.get(&path, bad).await;
            assert_eq!(res.status(), 401, "{bad}");
            assert_eq!(json(res).await["message"], "Authentication Required");
        }
        let res = w.app.get_anonymous(&path).await;
        assert_eq!(res.status(), 401);
        assert_eq!(res.headers().get("www-authenticate").unwrap(), "Bearer");
    }

    async fn jwks_publishes_the_signing_key_and_rotation_keeps_old_tokens(backend) {
        let w = world(backend).await;
        let old = w.token(&w.a.client).await;
        let jwks: Value = json(w.app.get_anonymous("/.well-known/jwks.json").await).await;
        let keys = jwks["keys"].as_array().unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0]["kty"], "RSA");
        assert_eq!(keys[0]["alg"], "RS256");
        assert_eq!(keys[0]["use"], "sig");
        let old_kid = keys[0]["kid"].as_str().unwrap().to_owned();
        assert_eq!(kid_of(&old), old_kid);

        let new_kid = w.admin.rotate_signing_key().await.unwrap();
        let kids = jwks_when(&w, |kids| kids.len() == 2).await;
        assert!(kids.contains(&old_kid) && kids.contains(&new_kid), "{kids:?}");

        w.app.clock.advance(time::Duration::seconds(1));
        let fresh = w.token(&w.a.client).await;
        assert_eq!(kid_of(&fresh), new_kid);
        let path = format!("/organisations/{}", w.a.organisation);
        assert_eq!(w.app.get(&path, &old).await.status(), 200, "old key still verifies");
        assert_eq!(w.app.get(&path, &fresh).await.status(), 200);

        // Once every token of the old key has expired, it is no longer published.
        w.app.clock.advance(time::Duration::seconds(3600));
        let kids = jwks_when(&w, |kids| kids.len() == 1).await;
        assert_eq!(kids, [new_kid]);
    }
}

/// Waits (bounded) until identity's periodic key reload has published what `ready` wants.
async fn jwks_when(w: &World, ready: impl Fn(&[&str]) -> bool) -> Vec<String> {
    for _ in 0..100 {
        let jwks: Value = json(w.app.get_anonymous("/.well-known/jwks.json").await).await;
        let kids: Vec<&str> = jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap())
            .collect();
        if ready(&kids) {
            return kids.into_iter().map(str::to_owned).collect();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("identity never published the expected keys");
}

fn kid_of(token: &str) -> String {
    let header: Value =
        serde_json::from_slice(&base64_url_decode(token.split('.').next().unwrap())).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

fn base64_url_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .unwrap()
}

fn base64_url_encode(b: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

mod remote_jwks {
    use super::*;
    use coffer_auth::{KeySource, RemoteJwks, Verifier};

    coffer_testkit::backend_tests! {
        async fn a_distributed_service_verifies_through_the_published_jwks(backend) {
            let w = world(backend).await;
            let token = w.token(&w.a.client).await;
            // What another service does in distributed mode: fetch identity's JWKS over HTTP.
            let remote = RemoteJwks::new(w.app.url("/.well-known/jwks.json"));
            let verifier = Verifier::new(
                KeySource::Remote(std::sync::Arc::new(remote)),
                coffer_testkit::ISSUER,
                std::sync::Arc::new(w.app.clock.clone()),
            );
            let claims = verifier.verify(&token).await.unwrap();
            assert_eq!(claims.client_id, w.a.client.client_id);
            assert_eq!(claims.organisations, vec![w.a.organisation]);
            let mut accounts = claims.accounts.clone();
            let mut expected = w.a.accounts.clone();
            accounts.sort();
            expected.sort();
            assert_eq!(accounts, expected);
            assert_eq!(claims.exp - claims.iat, 3600);
            // A token signed by a key identity never published is refused.
            let foreign = w.app.token_for(&[w.a.organisation]);
            assert!(verifier.verify(&foreign).await.is_err());
        }
    }
}
