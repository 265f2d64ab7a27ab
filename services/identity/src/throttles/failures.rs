//! Failed client authentications at the token endpoint, counted per client id and per
//! source address (see failure_window.rs for the rule).
//!
//! Only failures are counted and only failures are throttled: the secret is checked on
//! every request, and the right one is always answered with a token. Refusing the right
//! secret too would let anyone who knows a client id (they are not secret) lock its owner
//! out. Client secrets are 256 random bits, so the throttle is not what stops guessing; it
//! tells a misconfigured or hostile client to back off, and says so in the logs.
//!
//! The windows live in this process only: with several replicas behind the gateway, each
//! counts what reaches it, so a key is throttled after up to `allowed` failures per replica.

use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Arc;

use coffer_model::clock::Clock;
use quick_cache::sync::{Cache, EntryAction, EntryResult};
use serde::{Deserialize, Serialize};

use super::failure_window::{FailureLimit, FailureWindow};

/// The `token_failures.*` settings (docs/configuration.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThrottleSettings {
    /// Seconds a window lasts from a key's first failure.
    pub window_secs: i64,
    /// Failures a client id may have in a window before further ones get 429.
    pub per_client: u32,
    /// Failures an address (an IPv6 /64) may have in a window, over all client ids.
    pub per_address: u32,
    /// Client ids and addresses remembered at most (each); the least used are forgotten
    /// first, so a flood of made-up ids cannot grow memory.
    pub tracked: usize,
}

impl Default for ThrottleSettings {
    fn default() -> Self {
        Self {
            window_secs: 300,
            per_client: 10,
            per_address: 100,
            tracked: 100_000,
        }
    }
}

pub struct FailureThrottle {
    clock: Arc<dyn Clock>,
    by_client: FailureLimit,
    by_address: FailureLimit,
    /// Keyed by a hash of the client id, not the id: an unknown id can be as long as the
    /// body limit, and a remembered key then costs the same whatever was sent. The hasher's
    /// keys are random per process, so ids cannot be made up to share a window.
    clients: Cache<u64, FailureWindow>,
    hasher: RandomState,
    addresses: Cache<IpAddr, FailureWindow>,
}

impl FailureThrottle {
    pub fn new(clock: Arc<dyn Clock>, settings: ThrottleSettings) -> Self {
        let limit = |allowed| FailureLimit {
            allowed,
            window_secs: settings.window_secs,
        };
        Self {
            clock,
            by_client: limit(settings.per_client),
            by_address: limit(settings.per_address),
            clients: Cache::new(settings.tracked),
            hasher: RandomState::new(),
            addresses: Cache::new(settings.tracked),
        }
    }

    /// Counts a failed authentication of `client_id` from `address` (a
    /// `ClientAddress::network()`). `Some(seconds)` when either is over its limit: the
    /// failure is then answered 429 with that `Retry-After` (the longer of the two waits).
    pub fn failed(&self, client_id: &str, address: IpAddr) -> Option<u64> {
        let now = self.clock.unix();
        let client = count(
            &self.clients,
            self.hasher.hash_one(client_id),
            now,
            self.by_client,
        );
        let from = count(&self.addresses, address, now, self.by_address);
        if client.just_crossed(self.by_client) {
            tracing::warn!(
                client_id = %client_id.chars().take(64).collect::<String>(),
                "token endpoint: too many failed authentications of this client id, throttling"
            );
        }
        if from.just_crossed(self.by_address) {
            tracing::warn!(
                %address,
                "token endpoint: too many failed authentications from this address, throttling"
            );
        }
        let client = client.throttled_for(now, self.by_client);
        client.max(from.throttled_for(now, self.by_address))
    }

    /// A failed client authentication (the client-credentials grant's, or the code
    /// exchange's of sso/), counted as [`FailureThrottle::failed`] counts it, as the
    /// client is answered.
    pub fn refuse(&self, client_id: &str, address: IpAddr) -> ClientRefused {
        match self.failed(client_id, address) {
            None => ClientRefused::Invalid,
            Some(retry_after) => ClientRefused::Throttled { retry_after },
        }
    }
}

/// How a failed client authentication is answered: `invalid_client` (RFC 6749 section
/// 5.2), with 429 and a `Retry-After` once the client id or the address has failed too
/// often (the answers are written in error.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRefused {
    Invalid,
    Throttled { retry_after: u64 },
}

/// Records a failure of `key` at `now` and gives its window as it stands after.
fn count<K: Hash + Eq + Clone>(
    windows: &Cache<K, FailureWindow>,
    key: K,
    now: i64,
    limit: FailureLimit,
) -> FailureWindow {
    // `entry` counts under the shard's lock, so failures racing on one key are all counted.
    let seen = windows.entry(&key, None, |_, window| {
        window.record(now, limit.window_secs);
        EntryAction::Retain(*window)
    });
    match seen {
        EntryResult::Retained(window) => window,
        EntryResult::Vacant(slot) => {
            let first = FailureWindow::first(now);
            // Fails only when the slot was taken meanwhile; losing one count is harmless.
            let _ = slot.insert(first);
            first
        }
        // The callback never removes or replaces, and there is no timeout to run out.
        EntryResult::Removed(..) | EntryResult::Replaced(..) | EntryResult::Timeout => {
            FailureWindow::first(now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coffer_model::clock::ManualClock;

    fn throttle() -> (FailureThrottle, ManualClock) {
        let clock = ManualClock::at_unix(1_000);
        let settings = ThrottleSettings {
            window_secs: 60,
            per_client: 2,
            per_address: 3,
            tracked: 1_000,
        };
        (
            FailureThrottle::new(Arc::new(clock.clone()), settings),
            clock,
        )
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([192, 0, 2, n])
    }

    #[test]
    fn a_client_id_is_throttled_from_any_address() {
        let (t, _) = throttle();
        assert_eq!(t.failed("c", ip(1)), None);
        assert_eq!(t.failed("c", ip(2)), None);
        assert_eq!(t.failed("c", ip(3)), Some(60));
        assert_eq!(t.failed("other", ip(4)), None);
    }

    #[test]
    fn an_address_is_throttled_over_all_client_ids_and_the_longer_wait_wins() {
        let (t, clock) = throttle();
        for id in ["a", "b", "c"] {
            assert_eq!(t.failed(id, ip(1)), None);
        }
        clock.advance(time::Duration::seconds(10));
        assert_eq!(t.failed("d", ip(1)), Some(50));
        assert_eq!(t.failed("d", ip(2)), None);
        // "d" is now over its own limit too, with a window that closes later.
        assert_eq!(t.failed("d", ip(1)), Some(60));
    }

    #[test]
    fn a_new_window_after_the_old_one_closes() {
        let (t, clock) = throttle();
        for _ in 0..2 {
            t.failed("c", ip(1));
        }
        assert!(t.failed("c", ip(2)).is_some());
        clock.advance(time::Duration::seconds(60));
        assert_eq!(t.failed("c", ip(3)), None);
    }

    #[test]
    fn a_flood_of_made_up_ids_stays_within_the_bound() {
        let (t, _) = throttle();
        for n in 0..20_000u32 {
            t.failed(&format!("made-up-{n}"), IpAddr::from(n.to_be_bytes()));
        }
        assert!(t.clients.len() <= 1_000 + 64, "{}", t.clients.len());
        assert!(t.addresses.len() <= 1_000 + 64, "{}", t.addresses.len());
    }
}
