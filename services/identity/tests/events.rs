//! Identity announces its changes on the bus, with the full object in `data`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use coffer_events::{Bus, Event};
use coffer_identity::domain::directory::OrganisationInput;
use common::*;

async fn next_event(sub: &mut Box<dyn coffer_events::Subscription>) -> Event {
    let delivery = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("an event in time")
        .unwrap();
    sub.ack(&delivery).await.unwrap();
    assert!(
        delivery.message.header("traceparent").is_some(),
        "trace context rides along"
    );
    Event::from_json(&delivery.message.payload).unwrap()
}

coffer_testkit::backend_tests! {
    async fn admin_changes_are_published_with_the_full_object(backend) {
        let (app, admin) = spawn(backend).await;
        let mut sub = app.bus.subscribe("identity-test", &["coffer.events.identity".to_owned()]).await.unwrap();

        let org = admin
            .create_organisation(OrganisationInput { name: "Eventful".into(), locale: Some("fr_CH".into()), ..Default::default() })
            .await
            .unwrap();
        let created = next_event(&mut sub).await;
        assert_eq!(created.name, "coffer.event.identity.organisation.created");
        assert_eq!(created.object, "organisation");
        assert_eq!(created.object_uuid.to_string(), org["uuid"].as_str().unwrap());
        assert_eq!(created.organisation_uuid, Some(created.object_uuid));
        assert_eq!(created.account_uuid, None);
        assert_eq!(created.data, org, "data is the organisation's single form");
        assert_eq!(created.timestamp, coffer_testkit::START_UNIX * 1000);

        let org_uuid = created.object_uuid;
        let account = admin.create_account(org_uuid, "Main").await.unwrap();
        // Two objects' events: each object's come in order, but not one object's before
        // the other's (relay loops publish partitions side by side).
        let mut two = vec![next_event(&mut sub).await, next_event(&mut sub).await];
        two.sort_by_key(|e| e.object != "account");
        let (account_created, org_updated) = (two.remove(0), two.remove(0));
        assert_eq!(account_created.name, "coffer.event.identity.account.created");
        assert_eq!(account_created.data, account);
        assert_eq!(account_created.organisation_uuid, Some(org_uuid));
        assert_eq!(account_created.account_uuid, Some(account_created.object_uuid));
        assert_eq!(org_updated.name, "coffer.event.identity.organisation.updated");
        assert_eq!(org_updated.data["accounts"][0]["uuid"], account["uuid"]);

        admin.set_metadata(account_created.object_uuid, BTreeMap::from([("k".to_owned(), "v".to_owned())])).await.unwrap();
        let account_updated = next_event(&mut sub).await;
        assert_eq!(account_updated.name, "coffer.event.identity.account.updated");
        assert_eq!(account_updated.object_uuid, account_created.object_uuid);
    }

    async fn a_change_that_fails_validation_announces_nothing(backend) {
        let (app, admin) = spawn(backend).await;
        let mut sub = app.bus.subscribe("identity-test", &["coffer.events.identity".to_owned()]).await.unwrap();
        let bad = admin.create_organisation(OrganisationInput { name: " ".into(), ..Default::default() }).await;
        assert!(bad.is_err());
        admin.create_organisation(OrganisationInput { name: "Good".into(), ..Default::default() }).await.unwrap();
        let first = next_event(&mut sub).await;
        assert_eq!(first.data["name"], "Good");
    }
}
