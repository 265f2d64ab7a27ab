//! The source of "now". Components take `Arc<dyn Clock>` so tests can freeze and move time.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use time::OffsetDateTime;

const NANOS_PER_MILLI: i128 = 1_000_000;

pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> OffsetDateTime;

    fn unix(&self) -> i64 {
        self.now().unix_timestamp()
    }

    /// Floors towards the past so instants before 1970 stay ordered.
    fn unix_ms(&self) -> i64 {
        to_unix_ms(self.now())
    }
}

fn to_unix_ms(at: OffsetDateTime) -> i64 {
    let ms = at.unix_timestamp_nanos().div_euclid(NANOS_PER_MILLI);
    // OffsetDateTime spans ±9999 years, which always fits in i64 milliseconds.
    i64::try_from(ms).unwrap_or(i64::MAX)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// A clock that only moves when told to. Clones share one instant, so a test can keep a
/// handle and advance the clock a running service reads.
#[derive(Debug, Clone)]
pub struct ManualClock {
    unix_ms: Arc<AtomicI64>,
}

impl ManualClock {
    pub fn new(at: OffsetDateTime) -> Self {
        Self {
            unix_ms: Arc::new(AtomicI64::new(to_unix_ms(at))),
        }
    }

    pub fn at_unix(secs: i64) -> Self {
        Self {
            unix_ms: Arc::new(AtomicI64::new(secs.saturating_mul(1000))),
        }
    }

    pub fn set(&self, at: OffsetDateTime) {
        self.unix_ms.store(to_unix_ms(at), Ordering::SeqCst);
    }

    pub fn set_unix(&self, secs: i64) {
        self.unix_ms
            .store(secs.saturating_mul(1000), Ordering::SeqCst);
    }

    /// Negative durations move the clock backwards, which tests of skew need.
    pub fn advance(&self, by: time::Duration) {
        let delta = i64::try_from(by.whole_milliseconds()).unwrap_or(if by.is_negative() {
            i64::MIN
        } else {
            i64::MAX
        });
        // fetch_update only fails when the closure returns None, which it never does.
        let _ = self
            .unix_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |ms| {
                Some(ms.saturating_add(delta))
            });
    }

    pub fn into_arc(self) -> Arc<dyn Clock> {
        Arc::new(self)
    }
}

impl Clock for ManualClock {
    /// An instant pushed outside the calendar's range is pinned to its nearest end rather
    /// than failing, since a clock has no way to report an error.
    fn now(&self) -> OffsetDateTime {
        let ms = self.unix_ms.load(Ordering::SeqCst);
        let nanos = i128::from(ms) * NANOS_PER_MILLI;
        OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or_else(|_| {
            let edge = if ms < 0 {
                time::Date::MIN
            } else {
                time::Date::MAX
            };
            edge.midnight().assume_utc()
        })
    }

    fn unix(&self) -> i64 {
        self.unix_ms.load(Ordering::SeqCst).div_euclid(1000)
    }

    fn unix_ms(&self) -> i64 {
        self.unix_ms.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn system_clock_is_recent() {
        // 2020-01-01: any machine running these tests is past it.
        assert!(SystemClock.unix() > 1_577_836_800);
        let ms = SystemClock.unix_ms();
        assert!(ms / 1000 >= 1_577_836_800);
    }

    #[test]
    fn manual_clock_stands_still_until_moved() {
        let clock = ManualClock::new(datetime!(2024-01-01 0:00 UTC));
        assert_eq!(clock.unix(), 1_704_067_200);
        assert_eq!(clock.now(), datetime!(2024-01-01 0:00 UTC));
        clock.advance(time::Duration::milliseconds(1500));
        assert_eq!(clock.unix_ms(), 1_704_067_201_500);
        assert_eq!(clock.unix(), 1_704_067_201);
        assert_eq!(clock.now(), datetime!(2024-01-01 0:00:01.5 UTC));
    }

    #[test]
    fn clones_share_the_instant() {
        let clock = ManualClock::at_unix(100);
        let shared: Arc<dyn Clock> = clock.clone().into_arc();
        clock.advance(time::Duration::days(1));
        assert_eq!(shared.unix(), 100 + 86_400);
        clock.set(datetime!(1970-01-01 0:00 UTC));
        assert_eq!(shared.unix(), 0);
        clock.set_unix(42);
        assert_eq!(shared.now().unix_timestamp(), 42);
    }

    #[test]
    fn before_the_epoch_floors() {
        let clock = ManualClock::new(datetime!(1969-12-31 23:59:59.5 UTC));
        assert_eq!(clock.unix_ms(), -500);
        assert_eq!(clock.unix(), -1);
        assert_eq!(clock.now().unix_timestamp(), -1);
    }

    #[test]
    fn out_of_range_is_pinned() {
        let clock = ManualClock::at_unix(i64::MAX);
        assert_eq!(clock.now().date(), time::Date::MAX);
    }
}
