//! Another organisation's token is refused on every payments endpoint, and leaves the
//! first organisation's payments, sources and supporters as they were.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

fn card(account: &str, number: &str) -> Value {
    json!({"account_uuid": account, "payment_method": "card", "amount": {"value": "900", "currency": "CHF"},
        "payment_information": {"number": number, "expiry_month": 12, "expiry_year": 2030, "cvv": "123"},
        "custom_parameters": {"campaign": "spring"}})
}

coffer_testkit::backend_tests! {
    async fn every_endpoint_refuses_another_organisation(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, paid, _) = w.post("/payments", &token, &card(&account, "4242424242424242"), None).await;
        let (_, pending, _) = w.post("/payments", &token, &card(&account, "4000000000003220"), None).await;
        let debit_body = json!({"account_uuid": account, "payment_method": "sepa_dd", "amount": {"value": "900", "currency": "EUR"},
            "payment_information": {"iban": "DE89370400440532013000", "account_holder": "Ada Lovelace"}});
        let (_, debit, _) = w.post("/payments", &token, &debit_body, None).await;
        let (_, source, _) = w.post("/payment-sources", &token, &card(&account, "4242424242424242"), None).await;
        let (_, supporter, _) = w.post("/supporters", &token, &json!({"first_name": "Ada", "organisation_uuid": paid["organisation_uuid"]}), None).await;
        let id = |v: &Value| v["uuid"].as_str().unwrap().to_owned();
        let (paid_id, pending_id, debit_id, source_id, supporter_id) = (id(&paid), id(&pending), id(&debit), id(&source), id(&supporter));

        let other = w.token(w.organisation("Other").await).await;
        let http = &w.app.http;
        let send = |req: reqwest::RequestBuilder| {
            let other = other.clone();
            async move { req.bearer_auth(other).send().await.unwrap().status().as_u16() }
        };
        let url = |p: &str| w.app.url(p);
        let refusals = [
            ("POST /payments", send(http.post(url("/payments")).json(&card(&account, "4242424242424242"))).await),
            ("GET /payments/{}", send(http.get(url(&format!("/payments/{paid_id}")))).await),
            ("POST cancel", send(http.post(url(&format!("/payments/{pending_id}/cancel"))).json(&json!({}))).await),
            ("PUT custom-parameters", send(http.put(url(&format!("/payments/{paid_id}/custom-parameters"))).json(&json!({"x": "1"}))).await),
            ("PATCH custom-parameters", send(http.patch(url(&format!("/payments/{paid_id}/custom-parameters"))).json(&json!({"x": "1"}))).await),
            ("POST refunds", send(http.post(url(&format!("/payments/{paid_id}/refunds"))).json(&json!({}))).await),
            ("POST /payment-sources", send(http.post(url("/payment-sources")).json(&card(&account, "4242424242424242"))).await),
            ("GET /payment-sources/{}", send(http.get(url(&format!("/payment-sources/{source_id}")))).await),
            ("PUT source custom-parameters", send(http.put(url(&format!("/payment-sources/{source_id}/custom-parameters"))).json(&json!({"x": "1"}))).await),
            ("POST source charges", send(http.post(url(&format!("/payment-sources/{source_id}/charges"))).json(&json!({"amount": {"value": "1", "currency": "CHF"}}))).await),
            ("POST settle", send(http.post(url(&format!("/test-psp/sepa/{debit_id}/settle")))).await),
            ("GET profiles", send(http.get(url(&format!("/payment-method-profiles?account_uuid={account}")))).await),
            ("GET /supporters/{}", send(http.get(url(&format!("/supporters/{supporter_id}")))).await),
            ("PATCH /supporters/{}", send(http.patch(url(&format!("/supporters/{supporter_id}"))).json(&json!({"city": "Bern"}))).await),
            ("GET /supporters?organisation_uuid", send(http.get(url(&format!("/supporters?organisation_uuid={}", paid["organisation_uuid"].as_str().unwrap())))).await),
        ];
        for (what, status) in refusals {
            assert_eq!(status, 403, "{what}");
        }
        let (_, found, _) = w.post("/search/payments", &other, &json!({"query": {"$match": {"account_uuid": account}}}), None).await;
        assert_eq!(found["summary"]["hits"], 0);

        // Nothing of the first organisation's changed.
        let (_, after) = w.get(&format!("/payments/{paid_id}"), &token).await;
        assert_eq!(after["custom_parameters"], json!({"campaign": "spring"}));
        assert_eq!(after["refunded_amount"]["value"], "0");
        assert_eq!(w.get(&format!("/payments/{pending_id}"), &token).await.1["status"], "pending");
        assert_eq!(w.get(&format!("/payments/{debit_id}"), &token).await.1["status"], "pending");
        assert_eq!(w.get(&format!("/payment-sources/{source_id}"), &token).await.1["custom_parameters"], json!({"campaign": "spring"}));
        assert!(w.get(&format!("/supporters/{supporter_id}"), &token).await.1.get("city").is_none());
    }
}
