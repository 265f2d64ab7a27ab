//! A plan's notification settings: charges announced ahead, and failed attempts marked for
//! the charity to tell its supporter. Played on a test clock through the real scheduler
//! and payments, and read as a consumer of billing's events would.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// 2027-01-01T00:00:00Z
const CLOCK_START: i64 = 1_798_761_600;
const DAY: i64 = 86_400;

async fn advance_to(w: &World, clock: &str, token: &str, to: i64) {
    let (status, body, _) = w
        .post(
            &format!("/test-clocks/{clock}/advance"),
            token,
            &json!({"frozen_time": to}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for _ in 0..1200 {
        let (_, c) = w.get(&format!("/test-clocks/{clock}"), token).await;
        if c["status"] == "ready" {
            assert_eq!(c["frozen_time"], to);
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the test clock never finished advancing");
}

/// Every event that arrives until none has for `quiet`.
async fn drain(
    sub: &mut Box<dyn coffer_events::Subscription>,
    quiet: Duration,
) -> Vec<coffer_events::Event> {
    let mut out = Vec::new();
    while let Ok(delivery) = tokio::time::timeout(quiet, sub.next()).await {
        let delivery = delivery.unwrap();
        sub.ack(&delivery).await.unwrap();
        out.push(coffer_events::Event::from_json(&delivery.message.payload).unwrap());
    }
    out
}

fn about<'a>(
    events: &'a [coffer_events::Event],
    name: &str,
    subscription: &str,
) -> Vec<&'a coffer_events::Event> {
    events
        .iter()
        .filter(|e| {
            e.name == name
                && (e.object_uuid.to_string() == subscription
                    || e.data["subscription"]["uuid"] == subscription
                    || e.data["invoice"]["subscription"]["uuid"] == subscription)
        })
        .collect()
}

coffer_testkit::backend_tests! {
    async fn charges_are_announced_ahead_and_failed_attempts_carry_the_plans_word(backend) {
        let w = billing_world(backend).await;
        let (org, account, token) = billing_merchant(&w).await;
        let plan = json!({"organisation_uuid": org, "name": "Announced",
            "notification_configuration": {"notify_before_charge_days": 3, "notify_on_failed_attempt": true}});
        let (status, plan, _) = w.post("/subscription-plans", &token, &plan, None).await;
        assert_eq!(status, 201, "{plan}");
        let (_, clock, _) = w.post("/test-clocks", &token, &json!({"frozen_time": CLOCK_START}), None).await;
        let clock = clock["uuid"].as_str().unwrap().to_owned();
        let mut events = subscribe(&w, "subscriptions").await;

        // Both charged from 1 February with a card that fails: one on the announcing plan,
        // one on the global default, which announces nothing.
        let (source, supporter) = donor(&w, &token, org, &account, "4000000000000341").await;
        let make = |plan: Option<&Value>| {
            let mut body = json!({"account_uuid": account, "payment_source_uuid": source, "supporter_uuid": supporter,
                "test_mode": true, "currency": "CHF", "amount": 2500, "recurring_interval": "monthly",
                "planned_effective_from": "2027-02-01", "status": "active", "test_clock_uuid": clock});
            if let Some(plan) = plan {
                body["subscription_plan_uuid"] = plan["uuid"].clone();
            }
            body
        };
        let (status, told, _) = w.post("/subscriptions", &token, &make(Some(&plan)), None).await;
        assert_eq!(status, 201, "{told}");
        assert_eq!(told["subscription_plan"]["uuid"], plan["uuid"]);
        let (status, silent, _) = w.post("/subscriptions", &token, &make(None), None).await;
        assert_eq!(status, 201, "{silent}");
        let (told, silent) = (told["uuid"].as_str().unwrap(), silent["uuid"].as_str().unwrap());
        let first_charge = CLOCK_START + 31 * DAY;

        // A second before local midnight three days ahead: nothing yet.
        advance_to(&w, &clock, &token, first_charge - 3 * DAY - 1).await;
        let early = drain(&mut events, Duration::from_millis(1500)).await;
        assert!(about(&early, "coffer.event.subscriptions.invoice.upcoming", told).is_empty(), "announced early");

        // At that midnight, announced once, with the charge date and the amount.
        advance_to(&w, &clock, &token, first_charge - 3 * DAY).await;
        let upcoming = next_named(&mut events, "coffer.event.subscriptions.invoice.upcoming").await;
        assert_eq!(upcoming.object_uuid.to_string(), told);
        assert_eq!(upcoming.data["upcoming_due_date"], first_charge);
        assert_eq!(upcoming.data["amount"], 2500);
        assert_eq!(upcoming.data["subscription_plan"]["uuid"], plan["uuid"]);

        // Through the first charge and its first retry, and on to the next announcement.
        let second_charge = CLOCK_START + 59 * DAY;
        advance_to(&w, &clock, &token, second_charge - 3 * DAY).await;
        let rest = drain(&mut events, Duration::from_millis(1500)).await;
        let announced: Vec<&Value> = about(&rest, "coffer.event.subscriptions.invoice.upcoming", told).iter()
            .map(|e| &e.data["upcoming_due_date"]).collect();
        assert_eq!(announced, [&json!(second_charge)], "each charge date announced once: {rest:?}");
        assert!(about(&rest, "coffer.event.subscriptions.invoice.upcoming", silent).is_empty(), "the default plan announces nothing");

        let failed_told = about(&rest, "coffer.event.subscriptions.charge_attempt.failed", told);
        let failed_silent = about(&rest, "coffer.event.subscriptions.charge_attempt.failed", silent);
        assert!(!failed_told.is_empty() && !failed_silent.is_empty(), "{rest:?}");
        assert!(failed_told.iter().all(|e| e.data["notify_supporter"] == true));
        assert!(failed_silent.iter().all(|e| e.data["notify_supporter"] == false));

        // The announcement came before the invoice it announced.
        let position = |name: &str| rest.iter().position(|e| e.name == name).unwrap();
        assert!(position("coffer.event.subscriptions.invoice.created") < position("coffer.event.subscriptions.invoice.upcoming"),
            "the February invoice precedes the March announcement");
    }
}
