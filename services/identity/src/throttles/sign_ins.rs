//! Failed sign-ins counted per (e-mail address, source network) and per source network
//! (delays.rs has the rule). A key that must wait is answered 429 without its
//! password being checked; the right password from a network with no failures is never
//! delayed, whatever is tried against the same address elsewhere.
//!
//! Like the token endpoint's throttle, the counts live in this process only: behind the
//! gateway each replica counts what reaches it (docs/partners.md).

use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Arc;

use coffer_model::clock::Clock;
use quick_cache::sync::{Cache, EntryAction, EntryResult};
use serde::{Deserialize, Serialize};

use super::delays::{Delay, DelayRule};

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

    /// Begins a try for `email_key` from `network`: `Err(seconds)` while either key must
    /// wait (nothing is counted then), else the try is counted as a failure of both keys
    /// until [`SignInThrottle::succeeded`] takes it back. Each key is counted under its
    /// cache shard's lock, so tries made in parallel are all counted.
    pub fn attempt(&self, email_key: &str, network: IpAddr) -> Result<(), i64> {
        let now = self.clock.unix();
        let account_rule = self.rule(self.settings.per_account_free);
        let network_rule = self.rule(self.settings.per_network_free);
        let key = self.account_key(email_key, network);
        if let Some(wait) = waiting(&self.networks, &network, now) {
            return Err(wait);
        }
        begin(&self.accounts, key, now, account_rule)?;
        if let Err(wait) = begin(&self.networks, network, now, network_rule) {
            refund(&self.accounts, key, account_rule);
            return Err(wait);
        }
        if waiting(&self.networks, &network, now).is_some() {
            tracing::warn!(%network, "sign-in: many failures from this network, slowing it down");
        }
        Ok(())
    }

    /// A try that succeeded (or was never the user's failure): its count is taken back,
    /// and the (address, network) key forgotten.
    pub fn succeeded(&self, email_key: &str, network: IpAddr) {
        self.accounts.remove(&self.account_key(email_key, network));
        refund(
            &self.networks,
            network,
            self.rule(self.settings.per_network_free),
        );
    }

    /// A try that was never checked (no turn to hash came): its count is taken back from
    /// both keys, and nothing else is forgotten.
    pub fn not_checked(&self, email_key: &str, network: IpAddr) {
        let account = self.rule(self.settings.per_account_free);
        refund(
            &self.accounts,
            self.account_key(email_key, network),
            account,
        );
        refund(
            &self.networks,
            network,
            self.rule(self.settings.per_network_free),
        );
    }

    fn rule(&self, free: u32) -> DelayRule {
        DelayRule {
            free,
            max_secs: self.settings.max_delay_secs,
        }
    }
}

fn waiting<K: Hash + Eq + Clone>(delays: &Cache<K, Delay>, key: &K, now: i64) -> Option<i64> {
    delays.get(key).and_then(|d| d.wait(now))
}

/// Begins a try of `key` under its shard's lock.
fn begin<K: Hash + Eq + Clone>(
    delays: &Cache<K, Delay>,
    key: K,
    now: i64,
    rule: DelayRule,
) -> Result<(), i64> {
    let mut outcome = Ok(());
    let seen = delays.entry(&key, None, |_, delay| {
        outcome = delay.begin(now, rule);
        EntryAction::Retain(())
    });
    if let EntryResult::Vacant(slot) = seen {
        let mut first = Delay::default();
        outcome = first.begin(now, rule);
        // Fails only when the slot was taken meanwhile; one lost count is harmless.
        let _ = slot.insert(first);
    }
    outcome
}

fn refund<K: Hash + Eq + Clone>(delays: &Cache<K, Delay>, key: K, rule: DelayRule) {
    let _ = delays.entry(&key, None, |_, delay| {
        delay.refund(rule);
        EntryAction::Retain(())
    });
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
            assert_eq!(t.attempt("ann@example.org", ip(1)), Ok(()));
        }
        assert_eq!(t.attempt("ann@example.org", ip(1)), Err(1));
        assert_eq!(t.attempt("ann@example.org", ip(2)), Ok(()));
        assert_eq!(t.attempt("bob@example.org", ip(1)), Ok(()));
    }

    #[test]
    fn a_network_trying_many_addresses_is_slowed_for_all() {
        let t = throttle();
        for n in 0..5 {
            assert_eq!(t.attempt(&format!("user{n}@example.org"), ip(1)), Ok(()));
        }
        assert_eq!(t.attempt("new@example.org", ip(1)), Err(1));
        assert_eq!(t.attempt("new@example.org", ip(2)), Ok(()));
    }

    #[test]
    fn the_right_password_is_never_counted_against_its_network() {
        let t = throttle();
        for _ in 0..20 {
            assert_eq!(t.attempt("ann@example.org", ip(3)), Ok(()));
            t.succeeded("ann@example.org", ip(3));
        }
    }
}
