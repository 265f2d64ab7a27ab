//! A direct-debit notification settles, records and returns collections.

use super::*;

#[tokio::test]
async fn a_notification_settles_records_and_returns_direct_debits() {
    let (_dir, _server, client, c) = start().await;
    let account = c["account_uuids"][0].clone();
    let mut pending = Vec::new();
    for value in ["5000", "1500"] {
        let (status, debit) = client
            .post("/payments", json!({"account_uuid": account, "payment_method": "sepa_dd",
                "amount": {"value": value, "currency": "EUR"},
                "payment_information": {"iban": "DE89 3704 0044 0532 0130 00", "account_holder": "Erika Mustermann"}}))
            .await;
        assert_eq!(status, 201, "{debit}");
        assert_eq!(debit["status"], "pending");
        pending.push(debit);
    }
    let e2e = |i: usize| pending[i]["end_to_end_id"].as_str().unwrap().to_owned();
    let mandate = |i: usize| pending[i]["mandate_reference"].as_str().unwrap().to_owned();
    let notifications = blueprint(&client, &c, "camt.054", "create_direct_debit_payments").await;
    let (first_e2e, first_mandate, second_e2e, second_mandate) =
        (e2e(0), mandate(0), e2e(1), mandate(1));
    let file = notification(
        "NTF-1",
        IBAN,
        &[
            Debit(&first_e2e, &first_mandate, "50.00", None),
            Debit("EXT-COLLECTION-7", "EXT-MANDATE-7", "12.50", None),
            Debit(&second_e2e, &second_mandate, "15.00", Some("MD06")),
        ],
    );
    let res = client
        .execute(&notifications, vec![("debits.xml", file.clone())])
        .await;
    assert_eq!(res.status(), 201);
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["status"], "processed", "{report}");
    assert_eq!(report["created_count"], 3, "{report}");
    let created = report["entries"]["created"].as_array().unwrap();
    assert_eq!(created[0]["kind"], "direct_debit_received");
    assert_eq!(created[2]["kind"], "direct_debit_returned");
    assert_eq!(created[2]["reason"], "MD06");

    let settled = client
        .until(
            &format!("/payments/{}", pending[0]["uuid"].as_str().unwrap()),
            |p| p["status"] == "succeeded",
        )
        .await;
    assert_eq!(settled["value_date"], today());
    let returned = client
        .until(
            &format!("/payments/{}", pending[1]["uuid"].as_str().unwrap()),
            |p| p["status"] == "failed",
        )
        .await;
    assert_eq!(returned["status_reason"], "direct_debit_returned");
    assert_eq!(returned["return_reason"], "MD06");
    // The collection Coffer never started is recorded from the file, the debtor as its
    // supporter snapshot (the file was Latin-1).
    let recorded = client
        .until(
            &format!("/payments/{}", created[1]["debit_uuid"].as_str().unwrap()),
            |p| p["status"] == "succeeded",
        )
        .await;
    assert_eq!(
        recorded["amount"],
        json!({"value": "1250", "currency": "EUR"})
    );
    assert_eq!(recorded["supporter"]["raw_name"], "Jürg Müller");
    assert_eq!(
        recorded["payment_information"]["iban"],
        "DE89**************3000"
    );
    assert_eq!(recorded["mandate_reference"], "EXT-MANDATE-7");

    // The returned collection is collected after all, in a later file: the money arrived,
    // so it is recorded as a payment of its own; the returned one stays as it was.
    let late = notification(
        "NTF-LATE",
        IBAN,
        &[Debit(&second_e2e, &second_mandate, "15.00", None)],
    );
    let r: Value = client.report(&notifications, "late.xml", late).await;
    assert_eq!(r["status"], "processed", "{r}");
    let late_uuid = r["entries"]["created"][0]["debit_uuid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(late_uuid, pending[1]["uuid"].as_str().unwrap());
    let collected = client
        .until(&format!("/payments/{late_uuid}"), |p| {
            p["status"] == "succeeded"
        })
        .await;
    assert_eq!(
        collected["amount"],
        json!({"value": "1500", "currency": "EUR"})
    );
    let (_, still) = client
        .get(&format!(
            "/payments/{}",
            pending[1]["uuid"].as_str().unwrap()
        ))
        .await;
    assert_eq!(still["status"], "failed", "{still}");

    // The first collection is returned after it was collected, and its notification is
    // sent again (overlapping files): that money came and went back, nothing new is made.
    let returned_late = notification(
        "NTF-RETURN-1",
        IBAN,
        &[
            // The entry is the batch's balance, which the helper books as a credit.
            Debit("EXT-COLLECTION-10", "EXT-MANDATE-10", "80.00", None),
            Debit(&first_e2e, &first_mandate, "50.00", Some("MD06")),
        ],
    );
    let r: Value = client.report(&notifications, "r.xml", returned_late).await;
    assert_eq!(r["status"], "processed", "{r}");
    client
        .until(
            &format!("/payments/{}", pending[0]["uuid"].as_str().unwrap()),
            |p| p["status"] == "failed",
        )
        .await;
    let again = notification(
        "NTF-AGAIN-1",
        IBAN,
        &[
            Debit(&first_e2e, &first_mandate, "50.00", None),
            Debit("EXT-COLLECTION-8", "EXT-MANDATE-8", "8.00", None),
        ],
    );
    let r: Value = client.report(&notifications, "again1.xml", again).await;
    let resent = r["entries"]["created"][0]["debit_uuid"]
        .as_str()
        .unwrap()
        .to_owned();
    let marker = r["entries"]["created"][1]["debit_uuid"]
        .as_str()
        .unwrap()
        .to_owned();
    // Payments reads the file's debits in order: once the second is recorded, the first
    // was read too.
    client
        .until(&format!("/payments/{marker}"), |p| {
            p["status"] == "succeeded"
        })
        .await;
    assert_eq!(
        client.get(&format!("/payments/{resent}")).await.0,
        404,
        "counted twice"
    );

    // The same bytes again: a duplicate, and payments sees nothing new.
    let dup: Value = client.report(&notifications, "again.xml", file).await;
    assert_eq!(dup["status"], "duplicate");
    assert_eq!(dup["created_count"], 0);

    // A collection without an EndToEndId, sent again in another file: the same debit, so
    // one payment.
    let mut debit_uuids = Vec::new();
    for message in ["NTF-2", "NTF-3"] {
        let file = notification(
            message,
            IBAN,
            &[Debit("NOTPROVIDED", "EXT-MANDATE-9", "9.00", None)],
        );
        let r: Value = client.report(&notifications, "n.xml", file).await;
        assert_eq!(r["status"], "processed", "{r}");
        debit_uuids.push(r["entries"]["created"][0]["debit_uuid"].clone());
    }
    assert_eq!(debit_uuids[0], debit_uuids[1]);
}
