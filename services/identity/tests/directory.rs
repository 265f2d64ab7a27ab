//! Organisations, accounts and what hangs off them, read as a client would.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use coffer_identity::admin::ClientAccess;
use coffer_identity::domain::directory::OrganisationInput;
use common::*;
use serde_json::{Value, json};

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

coffer_testkit::backend_tests! {
    async fn organisation_list_and_single_forms(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        let list = json(w.app.get("/organisations", &token).await).await;
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 1, "only the caller's organisation");
        assert_eq!(keys(&list[0]), ["active", "approval_status", "created", "name", "uuid"]);
        assert_eq!(list[0]["uuid"], w.a.organisation.to_string());
        assert_eq!(list[0]["name"], "Alpine Aid");
        assert_eq!(list[0]["approval_status"], "approved");
        assert_eq!(list[0]["active"], true);
        assert_eq!(list[0]["created"], coffer_testkit::START_UNIX);

        let one = json(w.app.get(&format!("/organisations/{}", w.a.organisation), &token).await).await;
        assert_eq!(
            keys(&one),
            ["accounts", "active", "approval_status", "created", "locale", "merchant_category_code", "name", "uuid"]
        );
        assert_eq!(one["merchant_category_code"], "8398");
        assert_eq!(one["locale"], "de_CH");
        let mut accounts: Vec<String> =
            one["accounts"].as_array().unwrap().iter().map(|a| a["uuid"].as_str().unwrap().to_owned()).collect();
        let mut expected: Vec<String> = w.a.accounts.iter().map(ToString::to_string).collect();
        accounts.sort();
        expected.sort();
        assert_eq!(accounts, expected);
        assert_eq!(keys(&one["accounts"][0]), ["uuid"]);
    }

    async fn organisation_addresses_and_metadata(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        let o = w.a.organisation;
        let list = json(w.app.get(&format!("/organisations/{o}/addresses"), &token).await).await;
        assert_eq!(list.as_array().unwrap().len(), 1);
        let address = &list[0];
        assert_eq!(
            keys(address),
            ["address_line1", "address_line2", "city", "country_code", "created", "postal_code", "type", "uuid"]
        );
        assert_eq!(address["city"], "Zürich");
        assert_eq!(address["type"], "main");
        assert_eq!(address["country_code"], "CH");
        let one = json(w.app.get(&format!("/organisations/{o}/addresses/{}", w.a.organisation_address), &token).await).await;
        assert_eq!(&one, address);
        let meta = json(w.app.get(&format!("/organisations/{o}/metadata"), &token).await).await;
        assert_eq!(meta, json!({"crm_id": "Alpine Aid-1", "tier": "gold"}));
    }

    async fn account_forms_billing_addresses_metadata(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        let list = json(w.app.get("/accounts", &token).await).await;
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(keys(&list[0]), ["active", "created", "name", "organisation_uuid", "uuid"]);
        assert_eq!(list[0]["organisation_uuid"], w.a.organisation.to_string());

        let a = w.a.accounts[0];
        let one = json(w.app.get(&format!("/accounts/{a}"), &token).await).await;
        assert_eq!(keys(&one), ["active", "created", "name", "organisation", "uuid"]);
        assert_eq!(keys(&one["organisation"]), ["active", "created", "name", "uuid"]);
        assert_eq!(one["organisation"]["uuid"], w.a.organisation.to_string());
        assert_eq!(one["name"], "Donations");

        let billing = json(w.app.get(&format!("/accounts/{a}/billing-data"), &token).await).await;
        assert_eq!(
            keys(&billing),
            ["account_holder", "account_name", "address", "iban", "organisation_name", "recipient_emails", "vat_number"]
        );
        assert_eq!(billing["organisation_name"], "Alpine Aid");
        assert_eq!(billing["account_name"], "Donations");
        assert_eq!(billing["iban"], "CH9300762011623852957");
        assert_eq!(billing["recipient_emails"], json!(["finance@example.org"]));
        assert_eq!(keys(&billing["address"]), ["address_line1", "address_line2", "city", "country_code", "postal_code"]);
        assert_eq!(billing["address"]["city"], "Basel");

        let addresses = json(w.app.get(&format!("/accounts/{a}/addresses"), &token).await).await;
        assert_eq!(addresses[0]["type"], "billing");
        let address = json(w.app.get(&format!("/accounts/{a}/addresses/{}", w.a.account_address), &token).await).await;
        assert_eq!(address, addresses[0]);
        let meta = json(w.app.get(&format!("/accounts/{a}/metadata"), &token).await).await;
        assert_eq!(meta, json!({"cost_centre": "42"}));

        // The second account has no billing data: a 404, not an empty object.
        let res = w.app.get(&format!("/accounts/{}/billing-data", w.a.accounts[1]), &token).await;
        assert_eq!(res.status(), 404);
    }

    async fn another_tenants_objects_are_403_everywhere(backend) {
        let w = world(backend).await;
        let token_b = w.token(&w.b.client).await;
        for path in World::endpoints_of(&w.a) {
            let res = w.app.get(&path, &token_b).await;
            assert_eq!(res.status(), 403, "{path}");
            let body = json(res).await;
            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{path}: {body}");
            assert_eq!(keys(&body), ["message"], "{path}: no data leaks");
        }
        // And tenant A's own token reads them all.
        let token_a = w.token(&w.a.client).await;
        for path in World::endpoints_of(&w.a) {
            assert_eq!(w.app.get(&path, &token_a).await.status(), 200, "{path}");
        }
        // Lists and search never show the other tenant.
        let list = json(w.app.get("/organisations", &token_b).await).await;
        assert!(list.as_array().unwrap().iter().all(|o| o["uuid"] != w.a.organisation.to_string()));
        let accounts = json(w.app.get("/accounts", &token_b).await).await;
        assert!(accounts.as_array().unwrap().iter().all(|a| a["organisation_uuid"] == w.b.organisation.to_string()));
        let search = json(w.app.get("/search/organisations?name=alpine", &token_b).await).await;
        assert_eq!(search["summary"]["hits"], 0);
    }

    async fn every_endpoint_needs_a_token(backend) {
        let w = world(backend).await;
        let mut paths = World::endpoints_of(&w.a);
        paths.extend(["/organisations".to_owned(), "/accounts".to_owned(), "/search/organisations".to_owned()]);
        for path in paths {
            let res = w.app.get_anonymous(&path).await;
            assert_eq!(res.status(), 401, "{path}");
            assert_eq!(json(res).await, json!({"message": "Authentication Required"}));
        }
    }

    async fn missing_objects_are_404_and_bad_uuids_400(backend) {
        let w = world(backend).await;
        let token = w.token(&w.a.client).await;
        let (o, a, missing) = (w.a.organisation, w.a.accounts[0], uuid::Uuid::new_v4());
        for path in [
            format!("/organisations/{missing}"),
            format!("/organisations/{missing}/addresses"),
            format!("/organisations/{missing}/metadata"),
            format!("/organisations/{o}/addresses/{missing}"),
            // Another owner's address is not found under this organisation.
            format!("/organisations/{o}/addresses/{}", w.a.account_address),
            format!("/accounts/{missing}"),
            format!("/accounts/{missing}/billing-data"),
            format!("/accounts/{a}/addresses/{missing}"),
        ] {
            let res = w.app.get(&path, &token).await;
            assert_eq!(res.status(), 404, "{path}");
            let body = json(res).await;
            assert_eq!(body["http_code"], 404, "{path}");
            assert_eq!(body["code"], "not_found");
            assert!(body["request_id"].is_string());
        }
        let res = w.app.get("/organisations/not-a-uuid", &token).await;
        assert_eq!(res.status(), 400);
        let body = json(res).await;
        assert_eq!(body["errors"][0]["property"], "organisation_uuid");
        assert_eq!(body["errors"][0]["code"], "error.validation.not_valid");
        // Every malformed uuid of a path is named, in the path's order.
        let res = w.app.get("/accounts/x/addresses/y", &token).await;
        assert_eq!(res.status(), 400);
        let body = json(res).await;
        let named: Vec<&str> = body["errors"].as_array().unwrap().iter()
            .map(|e| e["property"].as_str().unwrap()).collect();
        assert_eq!(named, ["account_uuid", "address_uuid"], "{body}");
    }

    async fn search_filters_by_name_and_pages(backend) {
        let (app, admin) = spawn(backend).await;
        for name in ["Hope Zürich", "Hope Geneva", "Ocean Trust", "hope_50%"] {
            admin.create_organisation(OrganisationInput { name: name.into(), ..Default::default() }).await.unwrap();
        }
        let token = app.platform_token();
        let all = json(app.get("/search/organisations", &token).await).await;
        assert_eq!(all["summary"]["hits"], 4);
        let hope = json(app.get("/search/organisations?name=HOPE", &token).await).await;
        assert_eq!(hope["summary"]["hits"], 3);
        let names: Vec<&str> = hope["hits"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Hope Geneva", "Hope Zürich", "hope_50%"]);
        assert_eq!(keys(&hope["hits"][0]), ["active", "approval_status", "created", "name", "uuid"]);
        let literal = json(app.get("/search/organisations?name=50%25", &token).await).await;
        assert_eq!(literal["summary"]["hits"], 1, "LIKE wildcards are matched literally");
        let page = json(app.get("/search/organisations?name=hope&from=1&size=1", &token).await).await;
        assert_eq!(page["summary"]["hits"], 3);
        assert_eq!(page["hits"].as_array().unwrap().len(), 1);
        assert_eq!(page["hits"][0]["name"], "Hope Zürich");
        let res = app.get("/search/organisations?size=abc", &token).await;
        assert_eq!(res.status(), 400);
        assert_eq!(json(res).await["errors"][0]["property"], "size");
        let res = app.get("/search/organisations?size=501", &token).await;
        assert_eq!(res.status(), 400);
    }

    async fn list_is_capped_at_500(backend) {
        let (app, admin) = spawn(backend).await;
        for i in 0..501 {
            admin.create_organisation(OrganisationInput { name: format!("Org {i:03}"), ..Default::default() }).await.unwrap();
        }
        let platform = admin.create_client(ClientAccess::Platform).await.unwrap();
        let res = app.http.post(app.url("/oauth2/token")).form(&[
            ("grant_type", "client_credentials"),
            ("client_id", platform.client_id.as_str()),
            ("client_secret", platform.client_secret.as_str()),
        ]).send().await.unwrap();
        let token = json(res).await["access_token"].as_str().unwrap().to_owned();
        let list = json(app.get("/organisations", &token).await).await;
        assert_eq!(list.as_array().unwrap().len(), 500);
        let search = json(app.get("/search/organisations?size=1", &token).await).await;
        assert_eq!(search["summary"]["hits"], 501, "search sees past the cap");
    }
}
