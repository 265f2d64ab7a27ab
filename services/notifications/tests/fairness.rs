//! Deliveries shared fairly between organisations, through HTTP: one organisation's
//! hundreds of endpoints that accept a connection and never answer do not hold up another
//! organisation's delivery to a receiver that answers. The other's latency is printed
//! (docs/benchmarks.md keeps the figures), never asserted: what is asserted is that its
//! delivery arrives, signed and whole, while the first organisation's tries hang.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use coffer_notifications::NotificationsSettings;
use coffer_testkit::START_UNIX;
use coffer_testkit::receiver::Receiver;
use common::*;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

const WAIT: Duration = Duration::from_secs(30);
const SUPPORTER_CREATED: &str = "coffer.event.supporters.supporter.created";
/// The silent organisation's endpoints: more tries at once than the process allows in all.
const SILENT_ENDPOINTS: usize = 300;

/// A listener that takes every connection and never says a word: a receiver that hangs.
struct Silent {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Silent {
    async fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        // Held open, so a try waits for its timeout rather than failing at once.
        let held: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                held.lock().await.push(stream);
            }
        });
        Silent { port, accepted }
    }

    fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Waits until at least `n` connections came and no more came for half a second: the
    /// tries the sender lets out at once are all hanging here.
    async fn settled(&self, n: usize) -> usize {
        let deadline = tokio::time::Instant::now() + WAIT;
        let mut last = self.accepted();
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let now = self.accepted();
            if now >= n && now == last {
                return now;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the silent listener took {now} connections, not a steady {n} or more"
            );
            last = now;
        }
    }
}

async fn hook(w: &World, token: &str, org: impl std::fmt::Display, url: &str) -> Value {
    let body = json!({"organisation_uuid": org.to_string(), "endpoint": url});
    let (status, made) = call(w, "POST", "/webhooks", token, Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    let subscription = json!({"organisation_uuid": org.to_string(), "action_configuration_uuid": made["uuid"],
        "action_type": "webhook", "event_name": SUPPORTER_CREATED});
    let (status, subscribed) = call(
        w,
        "POST",
        "/event-subscriptions",
        token,
        Some(&subscription),
    )
    .await;
    assert_eq!(status, 201, "{subscribed}");
    made
}

async fn new_supporter(w: &World, token: &str, org: impl std::fmt::Display) -> String {
    let body = json!({"organisation_uuid": org.to_string(), "first_name": "Ada"});
    let (status, made, _) = w.post("/supporters", token, &body, None).await;
    assert_eq!(status, 201, "{made}");
    made["uuid"].as_str().unwrap().to_owned()
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// A supporter of `org` made, and its delivery to `path` awaited as the `n`th there: checked
/// to be signed with `key` and to carry the event of that supporter. Answers the time from
/// the request that made the supporter to the delivery's arrival, in milliseconds.
async fn delivered(
    w: &World,
    receiver: &Receiver,
    (org, token): (uuid::Uuid, &str),
    (path, key): (&str, &str),
    n: usize,
) -> f64 {
    let asked = unix_now();
    let supporter = new_supporter(w, token, org).await;
    let got = receiver.wait_for(path, n, WAIT).await;
    let request = &got[n - 1];
    let body: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["event"]["name"], SUPPORTER_CREATED, "{body}");
    assert_eq!(body["event"]["object_uuid"], supporter.as_str(), "{body}");
    assert_eq!(request["headers"]["webhook-id"], body["event"]["id"]);
    assert!(
        receiver.verifies(request, key, false, START_UNIX),
        "the delivery verifies with the endpoint's key"
    );
    (request["arrived"].as_f64().unwrap() - asked) * 1000.0
}

coffer_testkit::backend_tests! {
    async fn endpoints_that_never_answer_do_not_hold_up_another_organisations_delivery(backend) {
        let receiver = Receiver::start();
        let silent = Silent::start().await;
        let settings = NotificationsSettings { max_endpoints_per_organisation: SILENT_ENDPOINTS, ..reaching(&receiver) };
        let w = notifications_world_with(backend, settings).await;
        let (a, _, a_token) = notifications_merchant(&w).await;
        let (b, _, b_token) = notifications_merchant(&w).await;
        let made = std::time::Instant::now();
        for i in 0..SILENT_ENDPOINTS {
            hook(&w, &a_token, a, &silent.url(&format!("/a/{i}"))).await;
        }
        eprintln!("{SILENT_ENDPOINTS} silent endpoints made in {:.1} s", made.elapsed().as_secs_f64());
        let b_hook = hook(&w, &b_token, b, &receiver.url("/b")).await;
        let key = b_hook["hmac_key"].as_str().unwrap().to_owned();

        // B alone first, for comparison.
        let alone = delivered(&w, &receiver, (b, &b_token), ("/b", &key), 1).await;
        assert_eq!(silent.accepted(), 0, "nothing went to the silent listener yet");

        // A's event owes a try to each of its endpoints: more than the process lets out at
        // once, and every one it lets out hangs.
        new_supporter(&w, &a_token, a).await;
        let hanging = silent.settled(16).await;
        let mut beside = Vec::new();
        for n in 2..=4 {
            beside.push(delivered(&w, &receiver, (b, &b_token), ("/b", &key), n).await);
        }
        let still_hanging = silent.accepted();
        eprintln!(
            "fairness ({backend:?}): B alone {alone:.0} ms; beside A's {hanging} hanging tries \
             ({still_hanging} by the end) {} ms",
            beside.iter().map(|ms| format!("{ms:.0}")).collect::<Vec<_>>().join(", ")
        );
        assert!(still_hanging >= hanging, "A's tries were still at the silent listener");
    }
}
