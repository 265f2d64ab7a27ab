//! A malformed uuid in a path is the caller's mistake: 400 in the operation's error shape,
//! naming the path parameter, before anything is looked up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::Value;

coffer_testkit::backend_tests! {
    async fn a_malformed_path_uuid_is_a_400_naming_the_parameter(backend) {
        let app = spawn(backend, master_keys(&[("m1", 1)], "m1")).await;
        let partner = Partner::new(&app).await;
        let token = partner.token(&app);
        for (method, path, parameter) in [
            ("GET", "/partner-onboarding-processes/not-a-uuid", "uuid"),
            ("POST", "/partner-integrations/not-a-uuid/disable", "partner_integration_uuid"),
        ] {
            let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            let res = app.http.request(method.clone(), app.url(path)).bearer_auth(&token).send().await.unwrap();
            let status = res.status().as_u16();
            let err: Value = res.json().await.unwrap();
            assert_eq!(status, 400, "{method} {path}: {err}");
            let errors = err["errors"].as_array().unwrap_or_else(|| panic!("{method} {path}: {err}"));
            assert_eq!(errors.len(), 1, "{method} {path}: {err}");
            assert_eq!(errors[0]["property"], parameter, "{method} {path}: {err}");
        }
    }
}
