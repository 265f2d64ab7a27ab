//! Notifications under test beside identity and payments, each on its own database,
//! sharing one bus, as in production. The world itself is payments' test world.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../payments/tests/common/mod.rs"]
mod world;

use std::sync::Arc;
use std::time::Duration;

use coffer_http::Module;
use coffer_notifications::{Notifications, NotificationsSettings};
use coffer_secrets::Secrets;
#[allow(unused_imports)]
pub use coffer_testkit::master_keys;
use serde_json::Value;
use uuid::Uuid;
pub use world::*;

pub async fn notifications_world(backend: Backend) -> World {
    notifications_world_with(backend, NotificationsSettings::default()).await
}

pub async fn notifications_world_with(backend: Backend, settings: NotificationsSettings) -> World {
    let secrets = Secrets::ephemeral().unwrap();
    notifications_world_sealing(backend, secrets, settings).await
}

/// The world with notifications sealing under `secrets`.
pub async fn notifications_world_sealing(
    backend: Backend,
    secrets: Secrets,
    settings: NotificationsSettings,
) -> World {
    world_with(backend, &[coffer_notifications::MIGRATIONS], |h, stores| {
        // The world builds its modules without awaiting; the start awaits its store.
        let start = Notifications::start(
            stores[0].clone(),
            h.clock_arc(),
            h.bus.clone(),
            secrets,
            settings,
        );
        let handle = tokio::runtime::Handle::current();
        let notifications = tokio::task::block_in_place(|| handle.block_on(start)).unwrap();
        vec![Arc::new(notifications) as Arc<dyn Module>]
    })
    .await
}

/// The same databases served by a new notifications process under `secrets`, as it starts
/// (the pass that seals again included), and how its start went. Identity and payments
/// are left out (identity's signing keys were sealed under keys of the old process, and
/// notifications knows its organisations already): requests are signed with the app's own
/// tokens from here (`w.app.token_for`).
pub async fn restarted(
    w: World,
    secrets: Secrets,
) -> (World, Result<(), coffer_notifications::StartError>) {
    let store = w.more[0].clone();
    w.restart_trying(|h| async move {
        let settings = NotificationsSettings::default();
        let clock = h.clock_arc();
        let n = Notifications::start(store, clock, h.bus.clone(), secrets, settings).await?;
        Ok(vec![Arc::new(n) as Arc<dyn Module>])
    })
    .await
}

/// The first column, as text, of every row `sql` selects from notifications' database; the
/// column must be named `text`.
pub async fn texts(w: &World, sql: &str) -> Vec<String> {
    coffer_testkit::texts(&w.more[0], sql.to_owned()).await
}

/// Settings that let deliveries reach `receiver` on loopback and trust its certificate.
pub fn reaching(receiver: &coffer_testkit::receiver::Receiver) -> NotificationsSettings {
    NotificationsSettings {
        addresses: coffer_http::address_policy::AddressPolicy::parse("127.0.0.0/8,::1/128")
            .unwrap(),
        extra_roots: Some(receiver.cert_pem.clone()),
        ..NotificationsSettings::default()
    }
}

/// Waits until `check` holds of the answer to GET `path`, within ten seconds.
pub async fn eventually(
    w: &World,
    path: &str,
    token: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..400 {
        let (status, body) = call(w, "GET", path, token, None).await;
        if status == 200 && check(&body) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let (_, body) = call(w, "GET", path, token, None).await;
    panic!("GET {path} never passed its check: {body}");
}

/// An organisation with an account notifications knows of, and a token for it.
pub async fn notifications_merchant(w: &World) -> (Uuid, String, String) {
    let (org, account, token) = w.merchant().await;
    for _ in 0..800 {
        let key = account.clone();
        let known = w.more[0]
            .query(move |db| coffer_directory::account_organisation(db, &key))
            .await
            .unwrap();
        if known.is_some() {
            return (org, account, token);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("notifications never learnt of account {account}");
}

/// A request with any method and an optional JSON body: (status, body or null).
pub async fn call(
    w: &World,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = w
        .app
        .http
        .request(method, w.app.url(path))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(body);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}
