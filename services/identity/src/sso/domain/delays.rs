//! Failed sign-ins slowed down, never locked out. The first `free` failures of a key cost
//! nothing; each one after that makes the key wait twice as long as the one before (1 s,
//! 2 s, 4 s, ... up to `max_secs`) before its next try is even checked. A success forgets
//! the key.
//!
//! Keys are (address, source network) and source network alone (sso/throttle.rs), never
//! the address alone: a guesser elsewhere can slow only themself, so the right password
//! from a clean network is never delayed.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayRule {
    pub free: u32,
    pub max_secs: i64,
}

/// The failures of one key and when it may try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delay {
    failures: u32,
    until: i64,
}

impl Delay {
    /// Seconds left to wait at `now`; `None` when a try may be checked.
    pub fn wait(&self, now: i64) -> Option<i64> {
        (self.until > now).then(|| self.until - now)
    }

    /// Counts a failure at `now`.
    pub fn failed(&mut self, now: i64, rule: DelayRule) {
        self.failures = self.failures.saturating_add(1);
        if self.failures > rule.free {
            let over = self.failures - rule.free - 1;
            let secs = 1i64
                .checked_shl(over.min(30))
                .unwrap_or(rule.max_secs)
                .min(rule.max_secs);
            self.until = now.saturating_add(secs);
        }
    }

    /// Whether the key can be forgotten: it waits for nothing and `idle_secs` passed since.
    pub fn stale(&self, now: i64, idle_secs: i64) -> bool {
        now >= self.until.saturating_add(idle_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: DelayRule = DelayRule {
        free: 3,
        max_secs: 900,
    };

    #[test]
    fn delays_start_after_the_free_failures_and_double() {
        let mut d = Delay::default();
        for _ in 0..3 {
            d.failed(100, RULE);
            assert_eq!(d.wait(100), None);
        }
        d.failed(100, RULE);
        assert_eq!(d.wait(100), Some(1));
        d.failed(101, RULE);
        assert_eq!(d.wait(101), Some(2));
        d.failed(103, RULE);
        assert_eq!(d.wait(103), Some(4));
        for _ in 0..40 {
            d.failed(1000, RULE);
        }
        assert_eq!(d.wait(1000), Some(900));
    }
}
