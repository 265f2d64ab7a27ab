//! IANA time zones and local calendar days, from the time-zone database compiled into
//! chrono-tz (so a container without /usr/share/zoneinfo computes the same dates).

use chrono::{DateTime, Days, LocalResult, NaiveDate, NaiveTime, Offset, TimeDelta, TimeZone};
pub use chrono_tz::Tz;

pub const UTC: Tz = chrono_tz::UTC;

/// A zone by its IANA name (`Europe/Zurich`, `UTC`), or `None` when there is no such zone.
pub fn parse(name: &str) -> Option<Tz> {
    name.parse().ok()
}

/// Seconds east of UTC that `zone` keeps at the instant `unix`.
pub fn offset_at(zone: Tz, unix: i64) -> i32 {
    DateTime::from_timestamp(unix, 0).map_or(0, |utc| {
        zone.offset_from_utc_datetime(&utc.naive_utc())
            .fix()
            .local_minus_utc()
    })
}

/// The stretches of one UTC offset that cover `from..=to`, as (first instant, offset),
/// in order; the first starts at `from`. Offsets are sampled daily and each change found
/// to the second, which holds as long as a zone changes its offset at most once a day.
pub fn offset_spans(zone: Tz, from: i64, to: i64) -> Vec<(i64, i32)> {
    const DAY: i64 = 86_400;
    let mut spans = vec![(from, offset_at(zone, from))];
    let mut at = from;
    while at < to {
        let next = (at + DAY).min(to);
        let current = spans.last().map_or(0, |s| s.1);
        if offset_at(zone, next) != current {
            // The first second of `at..=next` with another offset.
            let (mut lo, mut hi) = (at, next);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if offset_at(zone, mid) == current {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            spans.push((hi, offset_at(zone, hi)));
        }
        at = next;
    }
    spans
}

/// The date of local day number `day` (days since 1970-01-01).
pub fn date_of_day(day: i64) -> Option<NaiveDate> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    let days = Days::new(day.unsigned_abs());
    if day >= 0 {
        epoch.checked_add_days(days)
    } else {
        epoch.checked_sub_days(days)
    }
}

/// The instant `date` begins in `zone`: its local midnight, the earlier one when the clocks
/// go back over midnight, or the first quarter hour that exists when they skip it.
pub fn start_of_day(zone: Tz, date: NaiveDate) -> i64 {
    let midnight = date.and_time(NaiveTime::MIN);
    for quarter in 0..=96 {
        let local = midnight + TimeDelta::minutes(15 * quarter);
        match zone.from_local_datetime(&local) {
            LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => return t.timestamp(),
            LocalResult::None => continue,
        }
    }
    midnight.and_utc().timestamp()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn zurich_moves_its_clocks_at_the_end_of_march_and_october() {
        let zurich = parse("Europe/Zurich").unwrap();
        // 2026-01-01T00:00Z to 2026-12-31T00:00Z.
        let spans = offset_spans(zurich, 1_767_225_600, 1_798_675_200);
        assert_eq!(
            spans,
            vec![
                (1_767_225_600, 3600),
                (1_774_746_000, 7200), // 2026-03-29T01:00Z
                (1_792_890_000, 3600), // 2026-10-25T01:00Z
            ]
        );
        assert!(parse("Mars/Olympus_Mons").is_none());
    }

    #[test]
    fn days_start_at_local_midnight() {
        let zurich = parse("Europe/Zurich").unwrap();
        let day = NaiveDate::from_ymd_opt(2026, 7, 1).unwrap();
        assert_eq!(start_of_day(zurich, day), 1_782_856_800); // 2026-06-30T22:00Z
        assert_eq!(
            date_of_day(20_454),
            Some(NaiveDate::from_ymd_opt(2026, 1, 1).unwrap())
        );
        // Santiago skipped midnight on 2022-09-11: the day began at 01:00 local.
        let santiago = parse("America/Santiago").unwrap();
        let skipped = NaiveDate::from_ymd_opt(2022, 9, 11).unwrap();
        assert_eq!(start_of_day(santiago, skipped), 1_662_868_800); // 04:00Z
    }
}
