//! How `GET /payments/{uuid}` is answered: reads that arrive together, and reads after the
//! database closed every connection.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;

use serde_json::{Value, json};

coffer_testkit::backend_tests! {
    // Reads that arrive together are answered by one statement (coffer_store::Lookups):
    // each must still get its own payment with its own refunds, and another tenant's
    // payment stays refused and a missing one a 404 beside them.
    async fn reads_that_arrive_together_each_get_their_own_payment(backend) {
        let w = world(backend).await;
        let (_, account, token) = merchant(&w).await;
        let (_, other_account, other_token) = merchant(&w).await;
        let (_, refunded, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        let refunds = format!("/payments/{}/refunds", refunded["uuid"].as_str().unwrap());
        for value in ["300", "200"] {
            let (status, refund, _) = w.post(&refunds, &token, &json!({"amount": {"value": value, "currency": "CHF"}}), None).await;
            assert_eq!(status, 200, "{refund}");
        }
        let (_, plain, _) = w.post("/payments", &token, &card_payment(&account, "4242424242424242"), None).await;
        let (_, failed, _) = w.post("/payments", &token, &card_payment(&account, "4000000000000002"), None).await;
        let (_, theirs, _) = w.post("/payments", &other_token, &card_payment(&other_account, "4242424242424242"), None).await;
        let path = |p: &Value| format!("/payments/{}", p["uuid"].as_str().unwrap());
        let mut alone = Vec::new();
        for payment in [&refunded, &plain, &failed] {
            let (status, read) = w.get(&path(payment), &token).await;
            assert_eq!(status, 200, "{read}");
            alone.push(read);
        }
        let mut amounts: Vec<&str> = alone[0]["refunds"].as_array().unwrap().iter().map(|r| r["amount"]["value"].as_str().unwrap()).collect();
        amounts.sort_unstable();
        assert_eq!(amounts, ["200", "300"], "both refunds");
        assert_eq!(alone[1]["refunds"], json!([]));
        assert_eq!(alone[2]["status"], "failed");

        let missing = format!("/payments/{}", uuid::Uuid::new_v4());
        let asked: Vec<String> = (0..80)
            .map(|i| match i % 5 {
                0..=2 => path([&refunded, &plain, &failed][i % 5]),
                3 => path(&theirs),
                _ => missing.clone(),
            })
            .collect();
        let answers = futures_util::future::join_all(asked.iter().map(|p| w.get(p, &token))).await;
        for (i, (status, read)) in answers.into_iter().enumerate() {
            match i % 5 {
                0..=2 => {
                    assert_eq!(status, 200, "{read}");
                    assert_eq!(read, alone[i % 5], "read {i} among others answers as a read alone");
                }
                3 => assert_eq!(status, 403, "read {i}, another tenant's: {read}"),
                _ => assert_eq!(status, 404, "read {i}: {read}"),
            }
        }
    }
}

/// Reads take connections of their own that are not tried at checkout (docs/configuration.md,
/// `database.read_pool_size`): when PostgreSQL closes them all (a restart, a failover), the
/// next reads find them closed, drop them and are answered on new ones, never with an error.
#[tokio::test]
async fn reads_are_answered_after_the_server_closed_every_connection() {
    use diesel::RunQueryDsl;
    if !Backend::postgres_enabled() {
        return;
    }
    let w = world(Backend::Postgres).await;
    let (_, account, token) = merchant(&w).await;
    let (status, paid, _) = w
        .post(
            "/payments",
            &token,
            &card_payment(&account, "4242424242424242"),
            None,
        )
        .await;
    assert_eq!(status, 201, "{paid}");
    let path = format!("/payments/{}", paid["uuid"].as_str().unwrap());
    // Several reads at once, so that the readers' pool holds several connections.
    let reads = futures_util::future::join_all((0..6).map(|_| w.get(&path, &token))).await;
    assert!(reads.iter().all(|(status, _)| *status == 200));
    let closed = w
        .payments
        .query(|db| match db {
            coffer_store::Db::Pg(pg) => diesel::sql_query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
            .execute(*pg),
            coffer_store::Db::Sqlite(_) => Ok(0),
        })
        .await
        .unwrap();
    assert!(
        closed >= 2,
        "the readers' connections were closed ({closed})"
    );
    for _ in 0..10 {
        let (status, read) = w.get(&path, &token).await;
        assert_eq!(status, 200, "{read}");
        assert_eq!(read["amount"]["value"], "1050");
    }
}
