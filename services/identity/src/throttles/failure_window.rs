//! Failed client authentications counted in windows: the pure part of the token
//! endpoint's throttle (`tokens/throttle.rs` keeps one window per client id and per address).
//!
//! A window opens with a key's first failure and lasts `window_secs`. The first `allowed`
//! failures in it are answered as usual (401); every further one until the window closes is
//! throttled (429), with the seconds left as `Retry-After`. The next failure after that opens
//! a new window. A window per key, rather than windows aligned to the clock, keeps one
//! counter and one instant per key; the price is that a guesser who times it well gets up to
//! twice `allowed` across the end of one window and the start of the next.

/// How many failures a key may have in a window before further ones are throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureLimit {
    pub allowed: u32,
    pub window_secs: i64,
}

/// The failures of one key since `started` (Unix seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureWindow {
    started: i64,
    failures: u32,
}

impl FailureWindow {
    /// A key's first failure, at `now`.
    pub fn first(now: i64) -> Self {
        Self {
            started: now,
            failures: 1,
        }
    }

    /// Counts a failure at `now`: in this window while it lasts, else in a new one. A clock
    /// set back before the window's start also opens a new one, so a window never lasts
    /// longer than `window_secs` of the clock's own time.
    pub fn record(&mut self, now: i64, window_secs: i64) {
        if now < self.started || now >= self.started.saturating_add(window_secs) {
            *self = Self::first(now);
        } else {
            self.failures = self.failures.saturating_add(1);
        }
    }

    /// The seconds until the window closes, once its failures are more than allowed; `None`
    /// while they are within the limit or the window has closed.
    pub fn throttled_for(&self, now: i64, limit: FailureLimit) -> Option<u64> {
        let closes = self.started.saturating_add(limit.window_secs);
        if self.failures <= limit.allowed || now >= closes {
            return None;
        }
        Some(u64::try_from(closes - now).unwrap_or(1))
    }

    /// True for the one failure that crossed the limit: worth a log line, the ones after it
    /// are not.
    pub fn just_crossed(&self, limit: FailureLimit) -> bool {
        self.failures == limit.allowed.saturating_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: FailureLimit = FailureLimit {
        allowed: 3,
        window_secs: 60,
    };

    /// Records a failure at each instant and says, for each, whether it was throttled.
    fn run(at: &[i64]) -> Vec<Option<u64>> {
        let mut window: Option<FailureWindow> = None;
        at.iter()
            .map(|&now| {
                let w = window.get_or_insert(FailureWindow {
                    started: now,
                    failures: 0,
                });
                w.record(now, LIMIT.window_secs);
                w.throttled_for(now, LIMIT)
            })
            .collect()
    }

    #[test]
    fn failures_beyond_the_allowed_wait_for_the_window_to_close() {
        assert_eq!(
            run(&[0, 1, 2, 3, 10, 59]),
            [None, None, None, Some(57), Some(50), Some(1)]
        );
    }

    #[test]
    fn a_failure_after_the_window_opens_a_new_one() {
        assert_eq!(
            run(&[0, 1, 2, 3, 60, 61, 62, 63]),
            [None, None, None, Some(57), None, None, None, Some(57)]
        );
    }

    #[test]
    fn failures_spread_wider_than_the_window_are_never_throttled() {
        assert_eq!(run(&[0, 30, 59, 60, 90, 119, 120]), [None; 7]);
    }

    #[test]
    fn a_clock_set_back_opens_a_new_window() {
        assert_eq!(
            run(&[100, 100, 100, 100, 40]),
            [None, None, None, Some(60), None]
        );
    }

    #[test]
    fn a_closed_window_throttles_nothing_even_before_the_next_failure() {
        let mut w = FailureWindow::first(0);
        for now in 1..=4 {
            w.record(now, LIMIT.window_secs);
        }
        assert_eq!(w.throttled_for(59, LIMIT), Some(1));
        assert_eq!(w.throttled_for(60, LIMIT), None);
    }

    #[test]
    fn only_the_crossing_failure_is_reported() {
        let mut w = FailureWindow::first(0);
        let crossed: Vec<bool> = (1..6)
            .map(|now| {
                w.record(now, LIMIT.window_secs);
                w.just_crossed(LIMIT)
            })
            .collect();
        assert_eq!(crossed, [false, false, true, false, false]);
    }
}
