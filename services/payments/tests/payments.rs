//! Card payments through the test provider, as a client makes them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use std::time::Duration;

use serde_json::{Value, json};

coffer_testkit::backend_tests! {
    async fn test_cards_succeed_fail_or_ask_for_3ds(backend) {
        let w = world(backend).await;
        let (org, account, token) = merchant(&w).await;
        let (status, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        assert_eq!(status, 201, "{paid}");
        assert_eq!(paid["status"], "succeeded");
        assert_eq!(paid["amount"], json!({"value": "1050", "currency": "CHF"}));
        assert_eq!(paid["refunded_amount"], json!({"value": "0", "currency": "CHF"}));
        assert_eq!(paid["payment_method"], "card");
        assert_eq!(paid["profile"], "card_test");
        assert_eq!(paid["payment_provider"], "coffer_test");
        assert_eq!(paid["test_mode"], true);
        assert_eq!(paid["organisation_uuid"], org.to_string());
        assert_eq!(paid["account_uuid"], account);
        assert_eq!(paid["payment_information"]["brand"], "visa");
        assert_eq!(paid["payment_information"]["last4"], "4242");
        assert!(paid["payment_information"].get("number").is_none());
        assert!(paid["payment_information"].get("cvv").is_none());
        assert_eq!(paid["custom_parameters"], json!({"campaign": "winter"}));
        let (status, fetched) = w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await;
        assert_eq!(status, 200);
        assert_eq!(fetched, paid);

        for (number, reason) in [("4000000000000002", "card_declined"), ("4000000000009995", "insufficient_funds")] {
            let (status, failed, _) = w.post("/payments", &token, &card_payment(&account, number), None).await;
            assert_eq!(status, 201);
            assert_eq!(failed["status"], "failed");
            assert_eq!(failed["status_reason"], reason);
        }
        let (_, pending, _) = w.post("/payments", &token, &card_payment(&account, "4000000000003220"), None).await;
        assert_eq!(pending["status"], "pending");
        assert_eq!(pending["action"]["type"], "redirect");
        assert!(pending["action"]["url"].as_str().unwrap().contains(pending["uuid"].as_str().unwrap()));
    }

    async fn the_profile_is_chosen_by_name_uuid_or_method(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let mut by_name = card_payment(&account, "4242424242424242");
        by_name.as_object_mut().unwrap().remove("payment_method");
        by_name["profile"] = json!("card_test");
        assert_eq!(w.post("/payments", &token, &by_name, None).await.0, 201);
        let (_, profiles) = w.get(&format!("/payment-method-profiles?account_uuid={account}"), &token).await;
        let card = profiles.as_array().unwrap().iter().find(|p| p["payment_method"] == "card").unwrap();
        by_name["profile"] = card["uuid"].clone();
        assert_eq!(w.post("/payments", &token, &by_name, None).await.0, 201);
        let mut neither = by_name.clone();
        neither.as_object_mut().unwrap().remove("profile");
        let (status, err, _) = w.post("/payments", &token, &neither, None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "profile");
        let mut mismatch = by_name.clone();
        mismatch["payment_method"] = json!("twint");
        let (status, err, _) = w.post("/payments", &token, &mismatch, None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "payment_method");

        // RaiseNow's "default": the account's default profile for the method.
        for method in ["card", "twint"] {
            let mut default = card_payment(&account, "4242424242424242");
            default["payment_method"] = json!(method);
            default["profile"] = json!("default");
            if method != "card" {
                default.as_object_mut().unwrap().remove("payment_information");
            }
            let (status, made, _) = w.post("/payments", &token, &default, None).await;
            assert_eq!(status, 201, "{made}");
            assert_eq!(made["profile"], format!("{method}_test"));
        }
        // A profile sent empty, as a form's blank field: none named, the method's default.
        let mut blank = card_payment(&account, "4242424242424242");
        blank["profile"] = json!("");
        let (status, made, _) = w.post("/payments", &token, &blank, None).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["profile"], "card_test");
        let mut default_alone = by_name.clone();
        default_alone["profile"] = json!("default");
        let (status, err, _) = w.post("/payments", &token, &default_alone, None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "payment_method", "{err}");
    }

    async fn bad_requests_name_each_property(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let mut bad = card_payment(&account, "4242424242424241");
        bad["payment_information"]["cvv"] = json!("1");
        let (status, err, _) = w.post("/payments", &token, &bad, None).await;
        assert_eq!(status, 400);
        let props: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(props, ["payment_information.number", "payment_information.cvv"]);
        let (status, err, _) = w.post("/payments", &token, &json!({"payment_method": "card", "amount": {"value": "10.5", "currency": "XYZ"}}), None).await;
        assert_eq!(status, 400);
        let props: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(props, ["account_uuid", "amount.value", "amount.currency"]);
    }

    async fn another_tenant_cannot_pay_into_or_read_an_account(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let other = w.organisation("Other").await;
        let other_token = w.token(other).await;
        assert_eq!(w.post("/payments", &other_token, &card_payment(&account, "4242424242424242"), None).await.0, 403);
        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        assert_eq!(w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &other_token).await.0, 403);
        assert_eq!(w.get(&format!("/payments/{}", uuid::Uuid::new_v4()), &token).await.0, 404);
        let unknown = card_payment(&uuid::Uuid::new_v4().to_string(), "4242424242424242");
        assert_eq!(w.post("/payments", &token, &unknown, None).await.0, 404);
    }

    async fn a_retried_payment_is_charged_once(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let body = card_payment(&account, "4242424242424242");
        let (_, first, _) = w.post("/payments", &token, &body, Some("pay-1")).await;
        let (status, again, headers) = w.post("/payments", &token, &body, Some("pay-1")).await;
        assert_eq!(status, 201);
        assert_eq!(again["uuid"], first["uuid"]);
        assert_eq!(headers["idempotent-replayed"], "true");
        let mut other = body.clone();
        other["amount"]["value"] = json!("2000");
        assert_eq!(w.post("/payments", &token, &other, Some("pay-1")).await.0, 409);
    }

    async fn only_a_pending_payment_can_be_cancelled(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, pending, _) = w.post("/payments", &token, &card_payment(&account, "4000000000003220"), None).await;
        let path = format!("/payments/{}/cancel", pending["uuid"].as_str().unwrap());
        let (status, cancelled, _) = w.post(&path, &token, &json!({"reason": "donor changed their mind"}), None).await;
        assert_eq!(status, 200, "{cancelled}");
        assert_eq!(cancelled["status"], "cancelled");
        assert!(cancelled["action"].is_null(), "no redirect is due any more");
        let (status, again, _) = w.post(&path, &token, &json!({}), None).await;
        assert_eq!(status, 400);
        assert!(again["message"].as_str().unwrap().contains("cancelled"), "{again}");

        // A payment that was to keep its card keeps nothing once cancelled.
        let mut keeping = card_payment(&account, "4000000000003220");
        keeping["create_payment_source"] = json!(true);
        let (_, pending, _) = w.post("/payments", &token, &keeping, None).await;
        let (status, _, _) = w.post(&format!("/payments/{}/cancel", pending["uuid"].as_str().unwrap()), &token, &json!({}), None).await;
        assert_eq!(status, 200);
        let source = format!("/payment-sources/{}", pending["created_payment_source_uuid"].as_str().unwrap());
        let (_, kept) = w.get(&source, &token).await;
        assert_eq!((kept["status"].as_str(), kept["status_reason"].as_str()), (Some("failed"), Some("payment_cancelled")), "{kept}");

        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        let (status, err, _) = w.post(&format!("/payments/{}/cancel", paid["uuid"].as_str().unwrap()), &token, &json!({}), None).await;
        assert_eq!(status, 400);
        assert!(err["message"].as_str().unwrap().contains("refund"), "{err}");
        let other = w.token(w.organisation("Other").await).await;
        let (status, err, _) = w.post(&path, &other, &json!({}), None).await;
        assert_eq!(status, 403);
        assert!(err["message"].is_string());
    }

    async fn custom_parameters_are_replaced_or_merged(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        let path = format!("/payments/{}/custom-parameters", paid["uuid"].as_str().unwrap());
        let res = w.app.http.put(w.app.url(&path)).bearer_auth(&token).json(&json!({"a": 1, "b": {"nested": true}})).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.json::<Value>().await.unwrap(), json!({"a": 1, "b": {"nested": true}}));
        let (status, merged) = w.patch(&path, &token, &json!({"a": null, "c": "x"})).await;
        assert_eq!(status, 200);
        assert_eq!(merged, json!({"b": {"nested": true}, "c": "x"}));
        let (_, fetched) = w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await;
        assert_eq!(fetched["custom_parameters"], merged);
        let (status, err) = w.patch(&path, &token, &json!(["not", "an", "object"])).await;
        assert_eq!(status, 400);
        assert!(err["message"].as_str().unwrap().contains("must be a JSON object"), "{err}");
    }

    async fn create_supporter_makes_a_supporter_of_the_donor(backend) {
        let w = world(backend).await;
        let (org, account, token) = merchant(&w).await;
        let mut body = card_payment(&account, "4242424242424242");
        body["create_supporter"] = json!(true);
        body["supporter"] = json!({"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org", "email_permission": true});
        let (status, paid, _) = w.post("/payments", &token, &body, None).await;
        assert_eq!(status, 201, "{paid}");
        let supporter = paid["supporter_uuid"].as_str().unwrap();
        let (status, s) = w.get(&format!("/supporters/{supporter}"), &token).await;
        assert_eq!(status, 200);
        assert_eq!(s["email"], "ada@example.org");
        assert_eq!(s["organisation_uuid"], org.to_string());
        assert_eq!(paid["supporter"]["email_permission"], true, "the snapshot keeps what was sent");
        body["supporter"]["email"] = json!("broken");
        let (status, err, _) = w.post("/payments", &token, &body, None).await;
        assert_eq!(status, 400);
        assert_eq!(err["errors"][0]["property"], "supporter.email");
    }
}

mod refunds {
    use super::*;

    coffer_testkit::backend_tests! {
        async fn refunds_default_to_the_residual_and_never_exceed_it(backend) {
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
            let path = format!("/payments/{}/refunds", paid["uuid"].as_str().unwrap());
            let (status, part, _) = w.post(&path, &token, &json!({"amount": {"value": 300, "currency": "CHF"}}), None).await;
            assert_eq!(status, 200, "{part}");
            assert_eq!(part["amount"], json!({"value": "300", "currency": "CHF"}));
            assert_eq!(part["status"], "succeeded");
            let (status, err, _) = w.post(&path, &token, &json!({"amount": {"value": "800", "currency": "CHF"}}), None).await;
            assert_eq!(status, 400);
            assert_eq!(err["errors"][0]["property"], "amount.value");
            let (status, err, _) = w.post(&path, &token, &json!({"amount": {"value": "100", "currency": "EUR"}}), None).await;
            assert_eq!(status, 400);
            assert_eq!(err["errors"][0]["property"], "amount.currency");
            let (status, rest, _) = w.post(&path, &token, &json!({}), None).await;
            assert_eq!(status, 200);
            assert_eq!(rest["amount"]["value"], "750", "the whole residual");
            let (_, fetched) = w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await;
            assert_eq!(fetched["refunded_amount"]["value"], "1050");
            assert_eq!(fetched["refunds"].as_array().unwrap().len(), 2);
            assert_eq!(w.post(&path, &token, &json!({}), None).await.0, 400, "nothing left");

            let (_, failed, _) = w.post("/payments", &token, &card_payment(&account, "4000000000000002"), None).await;
            let (status, err, _) = w.post(&format!("/payments/{}/refunds", failed["uuid"].as_str().unwrap()), &token, &json!({}), None).await;
            assert_eq!(status, 400);
            assert!(err["errors"][0]["message"].as_str().unwrap().contains("failed"));
        }

        async fn fifty_concurrent_refunds_stay_within_the_amount(backend) {
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let (_, paid, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
            let url = w.app.url(&format!("/payments/{}/refunds", paid["uuid"].as_str().unwrap()));
            let requests = (0..50).map(|_| {
                let (http, url, token) = (w.app.http.clone(), url.clone(), token.clone());
                tokio::spawn(async move {
                    http.post(url).bearer_auth(token).json(&json!({"amount": {"value": "100", "currency": "CHF"}})).send().await.unwrap().status().as_u16()
                })
            });
            let mut statuses = Vec::new();
            for r in requests.collect::<Vec<_>>() {
                statuses.push(r.await.unwrap());
            }
            assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 10, "{statuses:?}");
            assert!(statuses.iter().all(|s| *s == 200 || *s == 400), "{statuses:?}");
            let (_, fetched) = w.get(&format!("/payments/{}", paid["uuid"].as_str().unwrap()), &token).await;
            assert_eq!(fetched["refunded_amount"]["value"], "1000");
            assert_eq!(fetched["refunds"].as_array().unwrap().len(), 10);
        }

        async fn answers_recorded_together_each_announce_their_own_payment_once(backend) {
            // Concurrent payments' outcomes are recorded in shared batches (one statement for
            // all their answers on PostgreSQL): each payment must still end with its own
            // status, its own event, once, and its own stored Idempotency-Key response.
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let mut events = subscribe(&w, "payment_gateway").await;
            let requests = (0..40).map(|i| {
                let number = if i % 3 == 0 { "4000000000000002" } else { "4242424242424242" };
                let mut body = card_payment(&account, number);
                body["custom_parameters"] = json!({"n": i.to_string()});
                let key = (i % 2 == 0).then(|| format!("together-{i}"));
                let (http, url, token) = (w.app.http.clone(), w.app.url("/payments"), token.clone());
                tokio::spawn(async move {
                    let mut req = http.post(url).bearer_auth(token).json(&body);
                    if let Some(key) = &key {
                        req = req.header("Idempotency-Key", key);
                    }
                    let res = req.send().await.unwrap();
                    (i, key, body, res.status().as_u16(), res.json::<Value>().await.unwrap())
                })
            });
            let mut answers = Vec::new();
            for r in requests.collect::<Vec<_>>() {
                answers.push(r.await.unwrap());
            }
            let mut expected = std::collections::BTreeMap::new();
            for (i, _, _, status, paid) in &answers {
                assert_eq!(*status, 201, "payment {i}: {paid}");
                let want = if i % 3 == 0 { "failed" } else { "succeeded" };
                assert_eq!(paid["status"], want, "payment {i}: {paid}");
                assert_eq!(paid["custom_parameters"]["n"], i.to_string(), "payment {i} answered with another's body");
                expected.insert(paid["uuid"].as_str().unwrap().to_owned(), want);
            }
            let mut announced = std::collections::BTreeMap::new();
            while announced.len() < expected.len() {
                let delivery = tokio::time::timeout(Duration::from_secs(10), events.next()).await.expect("every outcome announced").unwrap();
                events.ack(&delivery).await.unwrap();
                let event = coffer_events::Event::from_json(&delivery.message.payload).unwrap();
                let outcome = event.name.rsplit('.').next().unwrap().to_owned();
                assert_eq!(event.data["status"], outcome.as_str(), "{}", event.data);
                let earlier = announced.insert(event.object_uuid.to_string(), outcome);
                assert!(earlier.is_none(), "{} announced twice", event.object_uuid);
            }
            let announced: std::collections::BTreeMap<_, _> = announced.iter().map(|(k, v)| (k.clone(), v.as_str())).collect();
            assert_eq!(announced, expected);
            // A retry under a key is answered the stored first response, and charges nothing.
            for (i, key, body, _, paid) in answers.iter().filter(|a| a.1.is_some()) {
                let (status, again, _) = w.post("/payments", &token, body, key.as_deref()).await;
                assert_eq!((status, &again), (201, paid), "payment {i}");
            }
            assert_eq!(w.provider_book("charge").await.len(), 40);
        }

        async fn intents_recorded_together_keep_each_key_and_supporter(backend) {
            // Concurrent intents are recorded in shared batches (one insert for all their
            // payments): two requests under one key must still make one payment, one charge
            // and one supporter, and every other request its own.
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let requests = (0..40).map(|i| {
                let pair = i / 2;
                let mut body = card_payment(&account, "4242424242424242");
                body["custom_parameters"] = json!({"n": pair.to_string()});
                body["create_supporter"] = json!(true);
                body["supporter"] = json!({"first_name": format!("Donor {pair}"), "email": format!("donor{pair}@example.org")});
                let (http, url, token) = (w.app.http.clone(), w.app.url("/payments"), token.clone());
                tokio::spawn(async move {
                    let res = http.post(url).bearer_auth(token).header("Idempotency-Key", format!("pair-{pair}"))
                        .json(&body).send().await.unwrap();
                    (pair, res.status().as_u16(), res.json::<Value>().await.unwrap())
                })
            });
            let mut by_pair: std::collections::BTreeMap<i32, Vec<Value>> = std::collections::BTreeMap::new();
            for r in requests.collect::<Vec<_>>() {
                let (pair, status, paid) = r.await.unwrap();
                assert_eq!(status, 201, "pair {pair}: {paid}");
                assert_eq!(paid["custom_parameters"]["n"], pair.to_string(), "pair {pair} answered with another's body");
                by_pair.entry(pair).or_default().push(paid);
            }
            let mut supporters = std::collections::BTreeSet::new();
            for (pair, answers) in &by_pair {
                assert_eq!(answers[0]["uuid"], answers[1]["uuid"], "pair {pair}: one key, one payment");
                let supporter = answers[0]["supporter_uuid"].as_str().unwrap().to_owned();
                let (status, s) = w.get(&format!("/supporters/{supporter}"), &token).await;
                assert_eq!((status, &s["email"]), (200, &json!(format!("donor{pair}@example.org"))));
                supporters.insert(supporter);
            }
            assert_eq!(supporters.len(), 20);
            let (status, found, _) = w.post("/search/payments", &token, &json!({"query": {"$match": {"account_uuid": account}}, "size": 100}), None).await;
            assert_eq!(status, 200);
            assert_eq!(found["summary"]["hits"], 20);
            let (_, made, _) = w.post("/search/supporters", &token, &json!({"query": {"$match": {}}, "size": 0}), None).await;
            assert_eq!(made["summary"]["hits"], 20);
            assert_eq!(w.provider_book("charge").await.len(), 20);
        }

        async fn payments_written_together_fail_alone(backend) {
            // Concurrent payments share transactions (group commit); one that fails inside
            // its transaction (an unknown supporter, found only there) must neither take the
            // others down nor leave anything of itself behind.
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let url = w.app.url("/payments");
            let requests = (0..40).map(|i| {
                let mut body = card_payment(&account, "4242424242424242");
                body["custom_parameters"] = json!({"n": i.to_string()});
                if i % 4 == 0 {
                    body["supporter"] = json!({"uuid": uuid::Uuid::new_v4().to_string()});
                }
                let (http, url, token) = (w.app.http.clone(), url.clone(), token.clone());
                tokio::spawn(async move {
                    let res = http.post(url).bearer_auth(token).json(&body).send().await.unwrap();
                    (i, res.status().as_u16())
                })
            });
            let mut answers = Vec::new();
            for r in requests.collect::<Vec<_>>() {
                answers.push(r.await.unwrap());
            }
            for (i, status) in &answers {
                assert_eq!(*status, if i % 4 == 0 { 404 } else { 201 }, "payment {i}: {answers:?}");
            }
            let (status, found, _) = w.post("/search/payments", &token, &json!({"query": {"$match": {"account_uuid": account}}, "size": 100}), None).await;
            assert_eq!(status, 200);
            assert_eq!(found["summary"]["hits"], 30);
            let mut kept: Vec<i64> = found["hits"].as_array().unwrap().iter()
                .map(|h| h["custom_parameters"]["n"].as_str().unwrap().parse().unwrap()).collect();
            kept.sort_unstable();
            assert_eq!(kept, (0..40).filter(|i| i % 4 != 0).collect::<Vec<i64>>());
        }
    }
}

mod redirects {
    use super::*;

    coffer_testkit::backend_tests! {
        async fn three_d_secure_and_wallets_finish_on_the_test_page(backend) {
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let (_, pending, _) = w.post("/payments", &token, &card_payment(&account, "4000000000003220"), None).await;
            let uuid = pending["uuid"].as_str().unwrap();
            let landed = press(&w, &pending, "approve").await;
            assert_eq!(landed, format!("https://charity.example/thanks?payment_uuid={uuid}&status=succeeded"));
            let (_, done) = w.get(&format!("/payments/{uuid}"), &token).await;
            assert_eq!(done["status"], "succeeded");
            assert!(done["action"].is_null());

            let (_, declined, _) = w.post("/payments", &token, &card_payment(&account, "4000000000003220"), None).await;
            press(&w, &declined, "decline").await;
            let (_, done) = w.get(&format!("/payments/{}", declined["uuid"].as_str().unwrap()), &token).await;
            assert_eq!(done["status"], "failed");
            assert_eq!(done["status_reason"], "authentication_failed");

            for method in ["twint", "paypal"] {
                let body = json!({
                    "account_uuid": account, "payment_method": method,
                    "amount": {"value": "2500", "currency": "CHF"}, "return_url": "https://charity.example/thanks?ref=7"
                });
                let (status, wallet, _) = w.post("/payments", &token, &body, None).await;
                assert_eq!(status, 201, "{wallet}");
                assert_eq!(wallet["status"], "pending");
                assert_eq!(wallet["profile"], format!("{method}_test"));
                let landed = press(&w, &wallet, "approve").await;
                assert!(landed.starts_with("https://charity.example/thanks?ref=7&payment_uuid="), "{landed}");
                let (_, done) = w.get(&format!("/payments/{}", wallet["uuid"].as_str().unwrap()), &token).await;
                assert_eq!(done["status"], "succeeded");
            }
        }
    }
}

mod direct_debit {
    use super::*;

    coffer_testkit::backend_tests! {
        async fn a_direct_debit_waits_for_the_bank_then_settles(backend) {
            let w = world(backend).await;
            let (_, account, token) = merchant(&w).await;
            let body = json!({
                "account_uuid": account, "payment_method": "sepa_dd",
                "amount": {"value": "5000", "currency": "EUR"},
                "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}
            });
            let (status, debit, _) = w.post("/payments", &token, &body, None).await;
            assert_eq!(status, 201, "{debit}");
            assert_eq!(debit["status"], "pending");
            assert!(debit["action"].is_null(), "nothing for the donor to do");
            assert_eq!(debit["payment_information"]["iban"], "DE89**************3000");
            assert_eq!(debit["payment_information"]["account_holder"], "Erika Mustermann");
            let e2e = debit["end_to_end_id"].as_str().unwrap();
            assert!(e2e.starts_with("CF") && e2e.len() <= 35, "{e2e}");
            assert!(debit["mandate_reference"].as_str().unwrap().starts_with("CFM-"));

            // The debit's uuid travels through banks in its EndToEndId; the donor's page of
            // the test provider neither shows nor settles it.
            let page = w.app.url(&format!("/test-psp/3ds/{}", debit["uuid"].as_str().unwrap()));
            assert_eq!(w.app.http.get(&page).send().await.unwrap().status(), 404);
            for button in ["approve", "decline"] {
                let res = w.app.http.post(format!("{page}/{button}")).send().await.unwrap();
                assert_eq!(res.status(), 404, "{button}");
            }
            let (_, still) = w.get(&format!("/payments/{}", debit["uuid"].as_str().unwrap()), &token).await;
            assert_eq!(still["status"], "pending", "{still}");
            // Nor is it cancelled: the bank has it, and would collect it all the same.
            let cancel = format!("/payments/{}/cancel", debit["uuid"].as_str().unwrap());
            let (status, err, _) = w.post(&cancel, &token, &json!({}), None).await;
            assert_eq!(status, 400, "{err}");
            assert!(err["message"].as_str().unwrap().contains("bank"), "{err}");

            let path = format!("/test-psp/sepa/{}/settle", debit["uuid"].as_str().unwrap());
            let (status, settled, _) = w.post(&path, &token, &json!({}), None).await;
            assert_eq!(status, 200, "{settled}");
            assert_eq!(settled["status"], "succeeded");
            assert_eq!(w.post(&path, &token, &json!({}), None).await.0, 409, "settles once");
            assert_eq!(w.app.http.get(&page).send().await.unwrap().status(), 404, "settled, still not the page's");

            let (_, second, _) = w.post("/payments", &token, &body, None).await;
            assert_ne!(second["end_to_end_id"], debit["end_to_end_id"]);

            let mut bad = body.clone();
            bad["payment_information"] = json!({"iban": "DE00 0000 0000 0000 0000 00"});
            let (status, err, _) = w.post("/payments", &token, &bad, None).await;
            assert_eq!(status, 400);
            let props: Vec<&str> = err["errors"].as_array().unwrap().iter().map(|e| e["property"].as_str().unwrap()).collect();
            assert_eq!(props, ["payment_information.iban", "payment_information.account_holder"]);
        }
    }
}

mod keeping {
    use super::*;

    coffer_testkit::backend_tests! {
        async fn a_payment_can_keep_its_card_and_name_a_known_supporter(backend) {
            let w = world(backend).await;
            let (org, account, token) = merchant(&w).await;
            let mut body = card_payment(&account, "4242424242424242");
            body["create_payment_source"] = json!(true);
            let (_, paid, _) = w.post("/payments", &token, &body, None).await;
            let source = paid["created_payment_source_uuid"].as_str().expect("a source was kept");
            let (status, kept) = w.get(&format!("/payment-sources/{source}"), &token).await;
            assert_eq!(status, 200);
            assert_eq!(kept["status"], "active");
            assert_eq!(kept["payment_information"]["last4"], "4242");
            let mut declined = card_payment(&account, "4000000000000002");
            declined["create_payment_source"] = json!(true);
            let (_, failed, _) = w.post("/payments", &token, &declined, None).await;
            assert!(failed["created_payment_source_uuid"].is_null(), "a declined card is not kept");

            let (_, supporter, _) = w.post("/supporters", &token, &json!({"organisation_uuid": org, "last_name": "Known"}), None).await;
            let mut named = card_payment(&account, "4242424242424242");
            named["supporter"] = json!({"uuid": supporter["uuid"]});
            let (status, paid, _) = w.post("/payments", &token, &named, None).await;
            assert_eq!(status, 201, "{paid}");
            assert_eq!(paid["supporter_uuid"], supporter["uuid"]);
            named["supporter"] = json!({"uuid": uuid::Uuid::new_v4()});
            assert_eq!(w.post("/payments", &token, &named, None).await.0, 404);
        }
    }
}
