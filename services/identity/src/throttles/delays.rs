//! Failed sign-ins slowed down, never locked out. The first `free` failures of a key cost
//! nothing; each one after that makes the key wait twice as long as the one before (1 s,
//! 2 s, 4 s, ... up to `max_secs`) before its next try is even checked. A try is counted
//! as a failure when it begins ([`Delay::begin`]), so tries made in parallel are counted
//! before any of them is checked, and a success takes its count back
//! ([`Delay::refund`]).
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

    /// Begins a try at `now`: refused with the seconds to wait while the key waits, else
    /// counted as a failure until it proves otherwise.
    pub fn begin(&mut self, now: i64, rule: DelayRule) -> Result<(), i64> {
        if let Some(wait) = self.wait(now) {
            return Err(wait);
        }
        self.failed(now, rule);
        Ok(())
    }

    /// Takes back the count of a try that succeeded; a wait it caused ends with it when
    /// the failures are back within the free ones.
    pub fn refund(&mut self, rule: DelayRule) {
        self.failures = self.failures.saturating_sub(1);
        if self.failures <= rule.free {
            self.until = 0;
        }
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

    #[test]
    fn a_try_counts_when_it_begins_and_a_success_takes_it_back() {
        let mut d = Delay::default();
        for _ in 0..4 {
            assert_eq!(d.begin(100, RULE), Ok(()));
        }
        // The fourth try, not yet checked, already makes the next one wait.
        assert_eq!(d.begin(100, RULE), Err(1));
        d.refund(RULE);
        assert_eq!(d.begin(100, RULE), Ok(()));
    }
}
