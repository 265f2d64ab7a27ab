//! What every route, command and worker of onboarding shares, built once per process.

use std::net::IpAddr;
use std::sync::Arc;

use coffer_events::{Outbox, RelaySettings};
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;
use quick_cache::sync::{Cache, EntryAction, EntryResult};

use crate::captcha::CaptchaVerifier;
use crate::identity::IdentityPort;

#[derive(Clone)]
pub struct OnboardingSettings {
    pub event_prefix: String,
    pub relay: RelaySettings,
    /// How long a process may wait to be executed or connected.
    pub process_ttl_secs: i64,
    /// E-mail checks one network may make a minute.
    pub email_checks_per_minute: u32,
}

impl Default for OnboardingSettings {
    fn default() -> Self {
        Self {
            event_prefix: "coffer".into(),
            relay: RelaySettings::default(),
            process_ttl_secs: 7 * 86_400,
            email_checks_per_minute: 20,
        }
    }
}

pub(crate) struct OnboardingState {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub identity: Arc<dyn IdentityPort>,
    pub captcha: Arc<dyn CaptchaVerifier>,
    /// The master keys processes' tokens are sealed with (processes/store.rs).
    pub secrets: Secrets,
    pub process_ttl_secs: i64,
    pub email_checks: RateLimit,
}

/// At most `per_minute` uses per key in a minute from its first; the memory is bounded.
pub(crate) struct RateLimit {
    clock: Arc<dyn Clock>,
    per_minute: u32,
    windows: Cache<IpAddr, (i64, u32)>,
}

impl RateLimit {
    pub fn new(clock: Arc<dyn Clock>, per_minute: u32) -> Self {
        Self {
            clock,
            per_minute,
            windows: Cache::new(100_000),
        }
    }

    /// Counts one use; `Some(seconds)` to wait when over the limit. Counted under the
    /// cache shard's lock, so uses made in parallel are all counted.
    pub fn take(&self, key: IpAddr) -> Option<u64> {
        let now = self.clock.unix();
        let mut window = (now, 1);
        let seen = self.windows.entry(&key, None, |_, (start, used)| {
            if now >= *start && now < *start + 60 {
                *used += 1;
            } else {
                (*start, *used) = (now, 1);
            }
            window = (*start, *used);
            EntryAction::Retain(())
        });
        if let EntryResult::Vacant(slot) = seen {
            // Fails only when the slot was taken meanwhile; one lost count is harmless.
            let _ = slot.insert(window);
        }
        let (start, used) = window;
        (used > self.per_minute).then(|| u64::try_from(start + 60 - now).unwrap_or(1).max(1))
    }
}
