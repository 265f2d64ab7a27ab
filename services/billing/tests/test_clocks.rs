//! Test clocks: a year of giving in seconds, through the real scheduler and payments.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// 2027-01-01T00:00:00Z
const CLOCK_START: i64 = 1_798_761_600;

async fn ready(w: &World, clock: &str, token: &str) -> Value {
    for _ in 0..1200 {
        let (_, c) = w.get(&format!("/test-clocks/{clock}"), token).await;
        if c["status"] == "ready" {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the test clock never finished advancing");
}

coffer_testkit::backend_tests! {
    async fn dunning_on_a_test_clock_plays_out_in_order_and_the_real_clock_leaves_it_alone(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (status, clock, _) = w.post("/test-clocks", &token, &json!({"frozen_time": CLOCK_START}), None).await;
        assert_eq!(status, 201, "{clock}");
        assert_eq!(clock["status"], "ready");
        assert_eq!(clock["frozen_time"], CLOCK_START);
        let clock = clock["uuid"].as_str().unwrap().to_owned();

        let (source, supporter) = donor(&w, &token, org, &account, "4000000000000341").await;
        let body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
            "test_mode": true, "currency": "CHF", "amount": 2000, "recurring_interval": "monthly",
            "status": "active", "test_clock_uuid": clock});
        let (status, s, _) = w.post("/subscriptions", &token, &body, None).await;
        assert_eq!(status, 201, "{s}");
        assert_eq!(s["next_due_date"], CLOCK_START, "its first charge is the clock's today");
        let mut live = body.clone();
        live["test_mode"] = json!(false);
        let (status, err, _) = w.post("/subscriptions", &token, &live, None).await;
        assert_eq!(status, 400, "{err}");
        let path = format!("/subscriptions/{}", s["uuid"].as_str().unwrap());

        // The real clock moving on touches nothing of the test clock's.
        w.app.clock.set_unix(coffer_testkit::START_UNIX + 400 * 86_400);
        tokio::time::sleep(Duration::from_millis(400)).await;
        let token = w.token(org).await;
        assert_eq!(w.get(&format!("{path}/invoices"), &token).await.1, json!([]));

        // Three and a half months: three invoices, each tried four times, then the end.
        let (status, advancing, _) = w.post(&format!("/test-clocks/{clock}/advance"), &token,
            &json!({"frozen_time": CLOCK_START + 105 * 86_400}), None).await;
        assert_eq!(status, 200, "{advancing}");
        assert_eq!(advancing["status"], "advancing");
        assert_eq!(w.post(&format!("/test-clocks/{clock}/advance"), &token, &json!({"frozen_time": CLOCK_START + 200 * 86_400}), None).await.0, 409);
        let done = ready(&w, &clock, &token).await;
        assert_eq!(done["frozen_time"], CLOCK_START + 105 * 86_400);
        let invoices = w.get(&format!("{path}/invoices"), &token).await.1;
        let summary: Vec<(i64, &str, i64)> = invoices.as_array().unwrap().iter()
            .map(|i| (i["due_date"].as_i64().unwrap(), i["status"].as_str().unwrap(), i["failed_payment_attempts"].as_i64().unwrap()))
            .collect();
        let day = |d: i64| CLOCK_START + d * 86_400;
        assert_eq!(summary, [(day(0), "cancelled", 4), (day(31), "cancelled", 4), (day(59), "cancelled", 4)]);
        let attempts: Vec<usize> = invoices.as_array().unwrap().iter().map(|i| i["charge_attempts"].as_array().unwrap().len()).collect();
        assert_eq!(attempts, [4, 4, 4]);
        let after = w.get(&path, &token).await.1;
        assert_eq!(after["subscription_status"], "cancelled");
        assert_eq!(after["consecutive_failed_invoices"], 3);
        assert_eq!(after["ended_at"], day(65), "cancelled when the third invoice's last retry failed");

        let other = w.token(w.organisation("Other").await).await;
        assert_eq!(w.get(&format!("/test-clocks/{clock}"), &other).await.0, 403);
        assert_eq!(w.post(&format!("/test-clocks/{clock}/advance"), &other, &json!({"frozen_time": day(300)}), None).await.0, 403);
        assert_eq!(w.post(&format!("/test-clocks/{clock}/advance"), &token, &json!({"frozen_time": day(1)}), None).await.0, 400, "never backwards");
    }

    async fn a_year_of_monthly_giving_on_a_test_clock(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (_, clock, _) = w.post("/test-clocks", &token, &json!({"frozen_time": CLOCK_START + 30 * 86_400}), None).await;
        let clock = clock["uuid"].as_str().unwrap().to_owned();
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        // From 31 January in Zurich: the month ends clamp, and the dates never drift.
        let body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
            "test_mode": true, "currency": "CHF", "amount": 2000, "recurring_interval": "monthly",
            "timezone": "Europe/Zurich", "planned_effective_from": "2027-01-31", "status": "active", "test_clock_uuid": clock});
        let (_, s, _) = w.post("/subscriptions", &token, &body, None).await;
        let path = format!("/subscriptions/{}", s["uuid"].as_str().unwrap());
        w.post(&format!("/test-clocks/{clock}/advance"), &token, &json!({"frozen_time": CLOCK_START + 365 * 86_400}), None).await;
        ready(&w, &clock, &token).await;
        let invoices = w.get(&format!("{path}/invoices"), &token).await.1;
        let all = invoices.as_array().unwrap();
        assert_eq!(all.len(), 12, "31 January to 31 December");
        assert!(all.iter().all(|i| i["status"] == "paid"), "{invoices}");
        let dates: Vec<String> = all.iter().map(|i| {
            let t = i["due_date"].as_i64().unwrap();
            chrono::DateTime::from_timestamp(t, 0).unwrap().with_timezone(&chrono_tz::Europe::Zurich).format("%m-%d %H:%M").to_string()
        }).collect();
        assert_eq!(dates, ["01-31 00:00", "02-28 00:00", "03-31 00:00", "04-30 00:00", "05-31 00:00", "06-30 00:00",
            "07-31 00:00", "08-31 00:00", "09-30 00:00", "10-31 00:00", "11-30 00:00", "12-31 00:00"]);
    }

    async fn suspensions_skip_their_dates_and_planned_ends_end(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (_, clock, _) = w.post("/test-clocks", &token, &json!({"frozen_time": CLOCK_START}), None).await;
        let clock = clock["uuid"].as_str().unwrap().to_owned();
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let make = |interval: &str, zone: &str, from: &str, end: Option<&str>| {
            let mut body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
                "test_mode": true, "currency": "USD", "amount": 1000, "recurring_interval": interval, "timezone": zone,
                "planned_effective_from": from, "status": "active", "test_clock_uuid": clock});
            if let Some(end) = end {
                body["planned_end"] = json!(end);
            }
            body
        };
        let create = |body: Value| {
            let (w, token) = (&w, token.clone());
            async move {
                let (status, s, _) = w.post("/subscriptions", &token, &body, None).await;
                assert_eq!(status, 201, "{s}");
                format!("/subscriptions/{}", s["uuid"].as_str().unwrap())
            }
        };
        // Weekly on Sundays in New York across the March change of clocks, ending 29 March.
        let weekly = create(make("weekly", "America/New_York", "2027-03-07", Some("2027-03-29"))).await;
        // Monthly from the 29th: February 2027 has no 29th, and March has one again.
        let leap = create(make("monthly", "UTC", "2027-01-29", None)).await;
        // Monthly, suspended from 10 February to 10 April: March is skipped.
        let paused = create(make("monthly", "Europe/Zurich", "2027-01-15", None)).await;
        let (status, _, _) = w.post(&format!("{paused}/suspend"), &token,
            &json!({"suspension_start": "2027-02-10", "suspension_end": "2027-04-10"}), None).await;
        assert_eq!(status, 200);
        // Monthly, suspended indefinitely from 20 January: nothing after.
        let stopped = create(make("monthly", "Europe/Zurich", "2027-01-01", None)).await;
        w.post(&format!("{stopped}/suspend"), &token, &json!({"suspension_start": "2027-01-20"}), None).await;

        // To 21 April.
        w.post(&format!("/test-clocks/{clock}/advance"), &token, &json!({"frozen_time": CLOCK_START + 110 * 86_400}), None).await;
        ready(&w, &clock, &token).await;
        let local = |path: String, zone: chrono_tz::Tz| {
            let (w, token) = (&w, token.clone());
            async move {
                let invoices = w.get(&format!("{path}/invoices"), &token).await.1;
                invoices.as_array().unwrap().iter().map(|i| {
                    chrono::DateTime::from_timestamp(i["due_date"].as_i64().unwrap(), 0).unwrap()
                        .with_timezone(&zone).format("%Y-%m-%d %H:%M").to_string()
                }).collect::<Vec<_>>()
            }
        };
        assert_eq!(local(weekly.clone(), chrono_tz::America::New_York).await,
            ["2027-03-07 00:00", "2027-03-14 00:00", "2027-03-21 00:00", "2027-03-28 00:00"], "no date skipped or repeated at the change");
        let ended = w.get(&weekly, &token).await.1;
        assert_eq!(ended["subscription_status"], "ended");
        assert_eq!(local(leap.clone(), chrono_tz::UTC).await, ["2027-01-29 00:00", "2027-02-28 00:00", "2027-03-29 00:00"]);
        assert_eq!(local(paused.clone(), chrono_tz::Europe::Zurich).await, ["2027-01-15 00:00", "2027-04-15 00:00"],
            "February and March fall in the suspension");
        assert_eq!(w.get(&paused, &token).await.1["subscription_status"], "active", "active again from 10 April");
        assert_eq!(local(stopped.clone(), chrono_tz::Europe::Zurich).await, ["2027-01-01 00:00"]);
        assert_eq!(w.get(&stopped, &token).await.1["subscription_status"], "suspended");
    }

    async fn clocks_are_bounded_idempotent_and_can_be_deleted(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        for (body, property) in [
            (json!({"frozen_time": CLOCK_START, "organisation_uuid": 123}), "organisation_uuid"),
            (json!({"frozen_time": "2027-01-01"}), "frozen_time"),
            (json!({"frozen_time": -1}), "frozen_time"),
            (json!({"frozen_time": 253_402_300_800_i64}), "frozen_time"),
            (json!({}), "frozen_time"),
        ] {
            let (status, err, _) = w.post("/test-clocks", &token, &body, None).await;
            assert_eq!(status, 400, "{body}: {err}");
            assert_eq!(err["errors"][0]["property"], property, "{body}: {err}");
        }
        let (status, err, _) = w.post("/test-clocks", &token, &json!([]), None).await;
        assert_eq!(status, 400, "{err}");

        // The same key gives the same clock.
        let body = json!({"frozen_time": CLOCK_START});
        let (status, first, _) = w.post("/test-clocks", &token, &body, Some("clock-1")).await;
        assert_eq!(status, 201, "{first}");
        let (status, again, headers) = w.post("/test-clocks", &token, &body, Some("clock-1")).await;
        assert_eq!((status, &again), (201, &first));
        assert_eq!(headers["idempotent-replayed"], "true");
        let clock = first["uuid"].as_str().unwrap().to_owned();

        let too_far = CLOCK_START + 3 * 366 * 86_400 + 1;
        let (status, err, _) = w.post(&format!("/test-clocks/{clock}/advance"), &token, &json!({"frozen_time": too_far}), None).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["errors"][0]["property"], "frozen_time");

        // A weekly subscription advancing three years, deleted on the way: the advance
        // stops, the subscription is cancelled, and nothing more is invoiced.
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        let (status, s, _) = w.post("/subscriptions", &token, &json!({"account_uuid": account, "payment_source_uuid": source,
            "supporter_uuid": supporter, "test_mode": true, "currency": "CHF", "amount": 500, "recurring_interval": "weekly",
            "status": "active", "test_clock_uuid": clock}), None).await;
        assert_eq!(status, 201, "{s}");
        let path = format!("/subscriptions/{}", s["uuid"].as_str().unwrap());
        let (status, _, _) = w.post(&format!("/test-clocks/{clock}/advance"), &token,
            &json!({"frozen_time": CLOCK_START + 3 * 366 * 86_400}), None).await;
        assert_eq!(status, 200);
        tokio::time::sleep(Duration::from_millis(300)).await;

        let other = w.token(w.organisation("Other").await).await;
        let delete = |token: String| {
            let w = &w;
            let url = w.app.url(&format!("/test-clocks/{clock}"));
            async move { w.app.http.delete(url).bearer_auth(token).send().await.unwrap().status().as_u16() }
        };
        assert_eq!(delete(other).await, 403);
        assert_eq!(delete(token.clone()).await, 204);
        assert_eq!(w.get(&format!("/test-clocks/{clock}"), &token).await.0, 404);
        assert_eq!(w.get(&path, &token).await.1["subscription_status"], "cancelled");
        let count = |invoices: Value| invoices.as_array().unwrap().len();
        let invoiced = count(w.get(&format!("{path}/invoices"), &token).await.1);
        assert!(invoiced < 157, "the advance was stopped ({invoiced} invoices)");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(count(w.get(&format!("{path}/invoices"), &token).await.1), invoiced);
        assert_eq!(delete(token.clone()).await, 404);
    }

    async fn dates_outside_the_calendar_bound_are_refused(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let (source, supporter) = donor(&w, &token, org, &account, "4242424242424242").await;
        for (property, date) in [("planned_effective_from", "0000-01-01"), ("planned_end", "9999-12-31"), ("planned_effective_from", "1969-12-31")] {
            let mut body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
                "test_mode": true, "currency": "CHF", "amount": 500, "recurring_interval": "monthly"});
            body[property] = json!(date);
            let (status, err, _) = w.post("/subscriptions", &token, &body, None).await;
            assert_eq!(status, 400, "{date}: {err}");
            let items = err.get("errors").or_else(|| err.pointer("/error/message")).unwrap();
            assert_eq!(items[0]["property"], property, "{err}");
        }
        let (status, err, _) = w.post("/subscriptions", &token, &json!({"account_uuid": account, "payment_source_uuid": source,
            "supporter_uuid": supporter, "test_mode": true, "currency": "CHF", "amount": 10_000_000_000_000_i64,
            "recurring_interval": "monthly"}), None).await;
        assert_eq!(status, 400, "{err}");
    }
}
