//! Failed sign-ins counted per (e-mail address, source network) and per source network
//! (domain/delays.rs has the rule). A key that must wait is answered 429 without its
//! password being checked; the right password from a network with no failures is never
//! delayed, whatever is tried against the same address elsewhere.
//!
//! Like the token endpoint's throttle, the counts live in this process only: behind the
//! gateway each replica counts what reaches it (docs/partners.md).

use std::hash::{BuildHasher, RandomState};
use std::net::IpAddr;
use std::sync::Arc;

use coffer_model::clock::Clock;
use quick_cache::sync::Cache;
use serde::{Deserialize, Serialize};

use super::domain::delays::{Delay, DelayRule};

/// The `sign_in_failures.*` settings (docs/configuration.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SignInThrottleSettings {
    /// Failures an address may have from one network before each next one waits.
    pub per_account_free: u32,
    /// Failures a network may have over all addresses before each next one waits.
    pub per_network_free: u32,
    /// The longest wait, in seconds.
    pub max_delay_secs: i64,
    /// Keys remembered at most (each kind); the least used are forgotten first.
    pub tracked: usize,
}

impl Default for SignInThrottleSettings {
    fn default() -> Self {
        Self {
            per_account_free: 5,
            per_network_free: 50,
            max_delay_secs: 900,
            tracked: 100_000,
        }
    }
}

pub struct SignInThrottle {
    clock: Arc<dyn Clock>,
    settings: SignInThrottleSettings,
    /// Keyed by a hash of (address, network): an address can be as long as the form
    /// allows, and the hasher's keys are random per process.
    accounts: Cache<u64, Delay>,
    hasher: RandomState,
    networks: Cache<IpAddr, Delay>,
}

impl SignInThrottle {
    pub fn new(clock: Arc<dyn Clock>, settings: SignInThrottleSettings) -> Self {
        Self {
            clock,
            settings,
            accounts: Cache::new(settings.tracked),
            hasher: RandomState::new(),
            networks: Cache::new(settings.tracked),
        }
    }

    fn account_key(&self, email_key: &str, network: IpAddr) -> u64 {
        self.hasher.hash_one((email_key, network))
    }

    /// Seconds a try for `email_key` from `network` must still wait; `None` to check it.
    pub fn wait(&self, email_key: &str, network: IpAddr) -> Option<i64> {
        let now = self.clock.unix();
        let account = self
            .accounts
            .get(&self.account_key(email_key, network))
            .and_then(|d| d.wait(now));
        let from = self.networks.get(&network).and_then(|d| d.wait(now));
        account.max(from)
    }

    pub fn failed(&self, email_key: &str, network: IpAddr) {
        let now = self.clock.unix();
        let account_rule = DelayRule {
            free: self.settings.per_account_free,
            max_secs: self.settings.max_delay_secs,
        };
        let network_rule = DelayRule {
            free: self.settings.per_network_free,
            max_secs: self.settings.max_delay_secs,
        };
        let key = self.account_key(email_key, network);
        let mut account = self.accounts.get(&key).unwrap_or_default();
        account.failed(now, account_rule);
        self.accounts.insert(key, account);
        let mut from = self.networks.get(&network).unwrap_or_default();
        from.failed(now, network_rule);
        if from.wait(now).is_some() && account.wait(now).is_none() {
            tracing::warn!(%network, "sign-in: many failures from this network, slowing it down");
        }
        self.networks.insert(network, from);
    }

    /// A success forgets the (address, network) key; the network's own count stays, so a
    /// guesser cannot clear it by signing in to an account of their own.
    pub fn succeeded(&self, email_key: &str, network: IpAddr) {
        self.accounts.remove(&self.account_key(email_key, network));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coffer_model::clock::ManualClock;

    fn throttle() -> SignInThrottle {
        let settings = SignInThrottleSettings {
            per_account_free: 2,
            per_network_free: 4,
            max_delay_secs: 60,
            tracked: 1_000,
        };
        SignInThrottle::new(Arc::new(ManualClock::at_unix(1_000)), settings)
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([192, 0, 2, n])
    }

    #[test]
    fn a_guesser_slows_only_their_own_network() {
        let t = throttle();
        for _ in 0..3 {
            t.failed("ann@example.org", ip(1));
        }
        assert_eq!(t.wait("ann@example.org", ip(1)), Some(1));
        assert_eq!(t.wait("ann@example.org", ip(2)), None);
        assert_eq!(t.wait("bob@example.org", ip(1)), None);
    }

    #[test]
    fn a_network_trying_many_addresses_is_slowed_for_all() {
        let t = throttle();
        for n in 0..5 {
            t.failed(&format!("user{n}@example.org"), ip(1));
        }
        assert_eq!(t.wait("new@example.org", ip(1)), Some(1));
        assert_eq!(t.wait("new@example.org", ip(2)), None);
    }
}
