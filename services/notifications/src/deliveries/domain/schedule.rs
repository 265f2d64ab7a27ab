//! When a failed delivery is tried again, and when Coffer stops trying.
//!
//! After the first try fails, the next come 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
//! later (eight tries over about 28 hours), each moved by up to ±20 % so that many
//! deliveries failing together do not come back together. A receiver that answers with
//! `Retry-After` is tried again when it asks, held between 5 s and 10 h.

/// The waits after the first, second, ... failed try, in seconds.
pub const DELAYS_SECS: [i64; 7] = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];
/// The first try and one per delay.
pub const MAX_TRIES: i32 = DELAYS_SECS.len() as i32 + 1;
/// How far jitter moves a wait, in thousandths either way.
pub const JITTER_PERMILLE: i64 = 200;
/// The bounds a receiver's `Retry-After` is held within, in seconds.
pub const RETRY_AFTER_SECS: (i64, i64) = (5, 10 * 3600);

/// The wait in milliseconds before the next try, after `tries` tries have failed; none
/// when that was the last one (`max_tries`). `jitter` is in thousandths, within
/// ±[`JITTER_PERMILLE`] (it is clamped there); a `retry_after` replaces the schedule's wait.
pub fn next_wait_ms(
    tries: i32,
    max_tries: i32,
    retry_after: Option<i64>,
    jitter: i64,
) -> Option<i64> {
    if tries >= max_tries || tries < 1 {
        return None;
    }
    if let Some(asked) = retry_after {
        return Some(asked.clamp(RETRY_AFTER_SECS.0, RETRY_AFTER_SECS.1) * 1000);
    }
    let index = usize::try_from(tries - 1)
        .unwrap_or(0)
        .min(DELAYS_SECS.len() - 1);
    let base_ms = DELAYS_SECS[index] * 1000;
    let jitter = jitter.clamp(-JITTER_PERMILLE, JITTER_PERMILLE);
    Some(base_ms + base_ms * jitter / 1000)
}

/// A `Retry-After` value: seconds, or an HTTP date (taken relative to `now`, Unix seconds).
pub fn retry_after(value: &str, now: i64) -> Option<i64> {
    let value = value.trim();
    // Digits only (a sign is not HTTP's); too many of them is as long as it gets.
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(value.parse::<i64>().unwrap_or(i64::MAX));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let at = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(i64::try_from(at).ok()? - now)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_runs_eight_tries_and_jitter_stays_within_a_fifth() {
        let waits: Vec<i64> = (1..MAX_TRIES)
            .map(|t| next_wait_ms(t, MAX_TRIES, None, 0).unwrap() / 1000)
            .collect();
        assert_eq!(waits, DELAYS_SECS);
        assert_eq!(next_wait_ms(MAX_TRIES, MAX_TRIES, None, 0), None);
        assert_eq!(next_wait_ms(1, MAX_TRIES, None, 200), Some(6_000));
        assert_eq!(next_wait_ms(1, MAX_TRIES, None, -999), Some(4_000));
        // A redelivery may have one try only.
        assert_eq!(next_wait_ms(3, 3, None, 0), None);
    }

    #[test]
    fn retry_after_is_honoured_within_bounds_in_both_forms() {
        assert_eq!(next_wait_ms(1, MAX_TRIES, Some(120), 150), Some(120_000));
        assert_eq!(next_wait_ms(1, MAX_TRIES, Some(0), 0), Some(5_000));
        assert_eq!(
            next_wait_ms(1, MAX_TRIES, Some(10_000_000), 0),
            Some(36_000_000)
        );
        assert_eq!(retry_after(" 30 ", 0), Some(30));
        // 1994-11-06T08:49:37Z is 784111777.
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_700),
            Some(77)
        );
        assert_eq!(retry_after("soon", 0), None);
        assert_eq!(
            retry_after("-5", 0),
            None,
            "not a valid value: the schedule decides"
        );
        assert_eq!(
            retry_after("99999999999999999999", 0),
            Some(i64::MAX),
            "held at 10 h"
        );
    }
}
