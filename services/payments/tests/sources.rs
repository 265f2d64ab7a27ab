//! Payment sources: stored instruments, and charging them again as billing will.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{Value, json};

fn source(account: &str, number: &str) -> Value {
    json!({
        "account_uuid": account,
        "payment_method": "card",
        "amount": {"value": "100", "currency": "CHF"},
        "payment_information": {"number": number, "expiry_month": 6, "expiry_year": 2031, "cvv": "321"},
        "return_url": "https://charity.example/thanks"
    })
}

coffer_testkit::backend_tests! {
    async fn cards_are_stored_masked_and_charged_again_by_the_platform(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (status, active, _) = w.post("/payment-sources", &token, &source(&account, "4242424242424242"), None).await;
        assert_eq!(status, 201, "{active}");
        assert_eq!(active["status"], "active");
        assert_eq!(active["payment_information"]["last4"], "4242");
        assert_eq!(active["test_mode"], true);
        assert!(active.get("provider_reference").is_none(), "the provider's handle stays inside");
        let path = format!("/payment-sources/{}", active["uuid"].as_str().unwrap());
        assert_eq!(w.get(&path, &token).await.1, active);
        let res = w.app.http.put(w.app.url(&format!("{path}/custom-parameters"))).bearer_auth(&token).json(&json!({"k": "v"})).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(w.get(&path, &token).await.1["custom_parameters"], json!({"k": "v"}));
        // Its faults answer in shape C (SPEC.md: custom-parameter operations), a message.
        let res = w.app.http.put(w.app.url(&format!("{path}/custom-parameters"))).bearer_auth(&token).json(&json!(["no"])).send().await.unwrap();
        assert_eq!(res.status(), 400);
        let err: Value = res.json().await.unwrap();
        assert!(err["message"].as_str().unwrap().contains("must be a JSON object"), "{err}");
        assert!(err.get("errors").is_none() && err.get("error").is_none(), "{err}");

        let (status, declined, _) = w.post("/payment-sources", &token, &source(&account, "4000000000000002"), None).await;
        assert_eq!(status, 201);
        assert_eq!(declined["status"], "failed");
        assert_eq!(declined["status_reason"], "card_declined");

        let platform = w.app.platform_token();
        let charge = json!({"amount": {"value": "2500", "currency": "CHF"}, "subscription_uuid": "5f0c4a52-8c2f-4d36-9a86-1b6ad2f8c7b1"});
        let (status, paid, _) = w.post(&format!("{path}/charges"), &platform, &charge, None).await;
        assert_eq!(status, 201, "{paid}");
        assert_eq!(paid["status"], "succeeded");
        assert_eq!(paid["amount"]["value"], "2500");
        assert_eq!(paid["subscription_uuid"], "5f0c4a52-8c2f-4d36-9a86-1b6ad2f8c7b1");
        assert_eq!(paid["payment_information"]["last4"], "4242");
        assert_eq!(w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await.0, 200);
        // Nobody was asked for it: the donor's page does not know it.
        let page = w.app.url(&format!("/test-psp/3ds/{}", paid["uuid"].as_str().unwrap()));
        assert_eq!(w.app.http.get(&page).send().await.unwrap().status(), 404);
        assert_eq!(w.app.http.post(format!("{page}/approve")).send().await.unwrap().status(), 404);

        // Each badly typed field of a charge is named, and nothing is charged.
        let bad = json!({"amount": {"value": "0", "currency": "CHF"}, "subscription_uuid": 7, "custom_parameters": "campaign"});
        let (status, err, _) = w.post(&format!("{path}/charges"), &platform, &bad, None).await;
        assert_eq!(status, 400, "{err}");
        let properties: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(properties, ["amount.value", "subscription_uuid", "custom_parameters"], "{err}");
        let (status, err, _) = w.post(&format!("{path}/charges"), &platform, &json!({"amount": {"value": "100", "currency": "CHF"}, "subscription_uuid": "nope"}), None).await;
        assert_eq!((status, &err["errors"][0]["property"]), (400, &json!("subscription_uuid")), "{err}");

        // A merchant's own token cannot charge a stored card; a failed source cannot be charged.
        assert_eq!(w.post(&format!("{path}/charges"), &token, &charge, None).await.0, 403);
        let failed_path = format!("/payment-sources/{}/charges", declined["uuid"].as_str().unwrap());
        assert_eq!(w.post(&failed_path, &platform, &charge, None).await.0, 409);

        // 4000000000000341 is stored, but every later charge of it fails.
        let (_, flaky, _) = w.post("/payment-sources", &token, &source(&account, "4000000000000341"), None).await;
        assert_eq!(flaky["status"], "active");
        let (_, failed, _) = w.post(&format!("/payment-sources/{}/charges", flaky["uuid"].as_str().unwrap()), &platform, &charge, None).await;
        assert_eq!(failed["status"], "failed");
        assert_eq!(failed["status_reason"], "card_declined");

        let other = w.token(w.organisation("Other").await).await;
        assert_eq!(w.get(&path, &other).await.0, 403);
        assert_eq!(w.get(&format!("/payment-sources/{}", uuid::Uuid::new_v4()), &token).await.0, 404);
    }

    async fn a_source_and_a_payment_name_their_supporter_as_a_payment_does(backend) {
        let w = world(backend).await;
        let (org, account, token) = merchant(&w).await;
        let (_, ada, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "first_name": "Ada"}), None).await;
        let mut body = source(&account, "4242424242424242");
        body["supporter"] = json!({"uuid": ada["uuid"]});
        let (status, kept, _) = w.post("/payment-sources", &token, &body, None).await;
        assert_eq!(status, 201, "{kept}");
        assert_eq!(kept["supporter_uuid"], ada["uuid"], "{kept}");
        // One the organisation does not have is not linked, and nothing is kept.
        let (other_org, _, other_token) = merchant(&w).await;
        let (_, stranger, _) = w.post("/supporters", &other_token, &json!({"organisation_uuid": other_org, "first_name": "Eve"}), None).await;
        for unknown in [stranger["uuid"].clone(), json!(uuid::Uuid::new_v4())] {
            body["supporter"] = json!({"uuid": unknown});
            let (status, err, _) = w.post("/payment-sources", &token, &body, None).await;
            assert_eq!(status, 404, "{err}");
        }
        // A supporter created with a payment is the one its snapshot names.
        let mut pay = source(&account, "4242424242424242");
        pay["create_supporter"] = json!(true);
        pay["supporter"] = json!({"uuid": stranger["uuid"], "first_name": "Ada"});
        let (status, paid, _) = w.post("/payments", &token, &pay, None).await;
        assert_eq!(status, 201, "{paid}");
        assert_eq!(paid["supporter"]["uuid"], paid["supporter_uuid"], "{paid}");
        assert_ne!(paid["supporter_uuid"], stranger["uuid"]);
    }

    async fn a_charge_of_a_source_under_one_idempotency_key_charges_once(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, active, _) = w.post("/payment-sources", &token, &source(&account, "4242424242424242"), None).await;
        let path = format!("/payment-sources/{}/charges", active["uuid"].as_str().unwrap());
        let platform = w.app.platform_token();
        let charge = json!({"amount": {"value": "2500", "currency": "CHF"}});
        // Twenty retries racing under one key: one payment, one call to the provider.
        let tries: Vec<_> = (0..20)
            .map(|_| {
                let (http, url, token, body) = (w.app.http.clone(), w.app.url(&path), platform.clone(), charge.clone());
                tokio::spawn(async move {
                    let res = http.post(url).bearer_auth(token).header("Idempotency-Key", "charge-1").json(&body).send().await.unwrap();
                    (res.status().as_u16(), res.json::<serde_json::Value>().await.unwrap())
                })
            })
            .collect();
        let mut payments = std::collections::BTreeSet::new();
        for t in tries {
            let (status, paid) = t.await.unwrap();
            assert_eq!(status, 201, "{paid}");
            payments.insert(paid["uuid"].as_str().unwrap().to_owned());
        }
        assert_eq!(payments.len(), 1, "{payments:?}");
        let (status, again, headers) = w.post(&path, &platform, &charge, Some("charge-1")).await;
        assert_eq!(status, 201);
        assert_eq!(headers["idempotent-replayed"], "true");
        assert_eq!(again["status"], "succeeded");
        assert!(payments.contains(again["uuid"].as_str().unwrap()));
        let book = w.provider_book("charge").await;
        assert_eq!(book.len(), 1, "one charge at the provider: {book:?}");
        let other = json!({"amount": {"value": "2600", "currency": "CHF"}});
        assert_eq!(w.post(&path, &platform, &other, Some("charge-1")).await.0, 409, "another body");
    }

    async fn a_source_that_needs_the_donor_waits_for_the_approval_page(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let mut events = subscribe(&w, "payment_gateway").await;
        let mut body = source(&account, "4000000000003220");
        body["return_url"] = json!("https://charity.example/kept");
        let (status, pending, _) = w.post("/payment-sources", &token, &body, None).await;
        assert_eq!(status, 201, "{pending}");
        assert_eq!(pending["status"], "pending");
        assert_eq!(pending["action"]["type"], "redirect");
        let uuid = pending["uuid"].as_str().unwrap().to_owned();
        let path = format!("/payment-sources/{uuid}");
        let platform = w.app.platform_token();
        let charge = json!({"amount": {"value": "1000", "currency": "CHF"}});
        assert_eq!(w.post(&format!("{path}/charges"), &platform, &charge, None).await.0, 409, "not before the donor agrees");

        let landed = press(&w, &pending, "approve").await;
        assert_eq!(landed, format!("https://charity.example/kept?payment_source_uuid={uuid}&status=active"));
        let (_, active) = w.get(&path, &token).await;
        assert_eq!(active["status"], "active");
        assert!(active.get("action").is_none(), "no redirect is due any more");
        let created = next_named(&mut events, "coffer.event.payment_gateway.payment_source.created").await;
        assert_eq!(created.object_uuid.to_string(), uuid);
        assert_eq!(created.data["status"], "active");
        let (_, paid, _) = w.post(&format!("{path}/charges"), &platform, &charge, None).await;
        assert_eq!(paid["status"], "succeeded");

        // Declined: failed with the reason, announced as such.
        let (_, refused, _) = w.post("/payment-sources", &token, &source(&account, "4000000000003220"), None).await;
        press(&w, &refused, "decline").await;
        let refused_uuid = refused["uuid"].as_str().unwrap();
        let (_, failed) = w.get(&format!("/payment-sources/{refused_uuid}"), &token).await;
        assert_eq!(failed["status"], "failed");
        assert_eq!(failed["status_reason"], "authentication_failed");
        let announced = next_named(&mut events, "coffer.event.payment_gateway.payment_source.failed").await;
        assert_eq!(announced.object_uuid.to_string(), refused_uuid);

        // Wallets: the donor agrees to later charges at TWINT or PayPal.
        for method in ["twint", "paypal"] {
            let body = json!({"account_uuid": account, "payment_method": method, "amount": {"value": "100", "currency": "CHF"},
                "return_url": "https://charity.example/thanks"});
            let (status, wallet, _) = w.post("/payment-sources", &token, &body, None).await;
            assert_eq!(status, 201, "{wallet}");
            assert_eq!(wallet["status"], "pending", "{method}");
            press(&w, &wallet, "approve").await;
            let wallet_path = format!("/payment-sources/{}", wallet["uuid"].as_str().unwrap());
            assert_eq!(w.get(&wallet_path, &token).await.1["status"], "active", "{method}");
            let (_, paid, _) = w.post(&format!("{wallet_path}/charges"), &platform, &charge, None).await;
            assert_eq!(paid["status"], "succeeded", "{method}");
            assert_eq!(paid["payment_method"], method);
        }
    }

    async fn a_direct_debit_mandate_is_kept_and_collected_under_its_reference(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let body = json!({"account_uuid": account, "payment_method": "sepa_dd", "amount": {"value": "100", "currency": "EUR"},
            "payment_information": {"iban": "CH93 0076 2011 6238 5295 7", "account_holder": "Ada Lovelace"}});
        let (status, mandate, _) = w.post("/payment-sources", &token, &body, None).await;
        assert_eq!(status, 201, "{mandate}");
        assert_eq!(mandate["status"], "active");
        assert_eq!(mandate["payment_information"]["iban"], "CH93*************2957");
        let reference = mandate["payment_information"]["mandate_reference"].as_str().unwrap().to_owned();
        assert!(reference.starts_with("CFM-") && reference.len() <= 35, "{reference}");

        let platform = w.app.platform_token();
        let path = format!("/payment-sources/{}/charges", mandate["uuid"].as_str().unwrap());
        let charge = json!({"amount": {"value": "2500", "currency": "EUR"}});
        let (_, first, _) = w.post(&path, &platform, &charge, None).await;
        let (_, second, _) = w.post(&path, &platform, &charge, None).await;
        for collection in [&first, &second] {
            assert_eq!(collection["status"], "pending", "collected by the bank later: {collection}");
            assert_eq!(collection["mandate_reference"], reference.as_str());
        }
        assert_ne!(first["end_to_end_id"], second["end_to_end_id"], "each collection has its own EndToEndId");
        // Nobody decides a collection on the donor's page: it asked no donor.
        for path in [format!("/test-psp/3ds/{}", first["uuid"].as_str().unwrap()), format!("/test-psp/3ds/{}/approve", first["uuid"].as_str().unwrap())] {
            let method = if path.ends_with("/approve") { reqwest::Method::POST } else { reqwest::Method::GET };
            let res = w.app.http.request(method, w.app.url(&path)).send().await.unwrap();
            assert_eq!(res.status(), 404, "{path}");
        }
        let (_, still) = w.get(&format!("/payments/{}", first["uuid"].as_str().unwrap()), &token).await;
        assert_eq!(still["status"], "pending", "{still}");

        let mut bad = body.clone();
        bad["payment_information"]["iban"] = json!("CH00 0000 0000 0000 0000 0");
        let (status, err, _) = w.post("/payment-sources", &token, &bad, None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "payment_information.iban");
    }

    async fn a_payment_that_keeps_its_source_decides_it_with_the_donor(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        for (button, expected) in [("approve", "active"), ("decline", "failed")] {
            let mut body = source(&account, "4000000000003220");
            body["create_payment_source"] = json!(true);
            let (status, payment, _) = w.post("/payments", &token, &body, None).await;
            assert_eq!(status, 201, "{payment}");
            assert_eq!(payment["status"], "pending");
            let source_path = format!("/payment-sources/{}", payment["created_payment_source_uuid"].as_str().unwrap());
            assert_eq!(w.get(&source_path, &token).await.1["status"], "pending");
            press(&w, &payment, button).await;
            assert_eq!(w.get(&source_path, &token).await.1["status"], expected, "{button}");
        }
        // A direct debit's source is the mandate the payment was collected under.
        let body = json!({"account_uuid": account, "payment_method": "sepa_dd", "amount": {"value": "100", "currency": "EUR"},
            "create_payment_source": true,
            "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Ada Lovelace"}});
        let (_, debit, _) = w.post("/payments", &token, &body, None).await;
        let (_, mandate) = w.get(&format!("/payment-sources/{}", debit["created_payment_source_uuid"].as_str().unwrap()), &token).await;
        assert_eq!(mandate["status"], "active");
        assert_eq!(mandate["payment_information"]["mandate_reference"], debit["mandate_reference"]);
    }
}
