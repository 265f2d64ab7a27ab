//! Bounds on a timestamp field (Unix seconds, such as `created`) as RaiseNow's documented
//! queries write them: a digit string or number, or a date in a named `format`
//! (`{"gte": "2024-01-01", "format": "yyyy-MM-dd"}`), read in UTC unless `time_zone`
//! names another zone. Pure: each bound becomes an operator and a whole second.

use chrono::{Days, NaiveDate, NaiveDateTime, TimeDelta, TimeZone};
use coffer_model::zone::{self, Tz};
use serde_json::Value;

/// The formats a bound may name, Elasticsearch's spelling (which RaiseNow's search passes
/// on): Unix seconds or milliseconds, a date, or a date and time to the second. Several
/// may be tried in turn, `yyyy-MM-dd||epoch_second`, at most [`MAX_ALTERNATIVES`].
pub const FORMATS: [&str; 5] = [
    "epoch_second",
    "epoch_millis",
    "yyyy-MM-dd",
    "yyyy-MM-dd HH:mm:ss",
    "yyyy-MM-dd'T'HH:mm:ss",
];
pub const MAX_ALTERNATIVES: usize = 4;

/// The instants a bound may name: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the
/// years four digits write.
pub const EARLIEST: i64 = -62_135_596_800;
pub const LATEST: i64 = 253_402_300_799;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    EpochSecond,
    EpochMillis,
    Date,
    DateTime(&'static str),
}

impl Pattern {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "epoch_second" => Self::EpochSecond,
            "epoch_millis" => Self::EpochMillis,
            "yyyy-MM-dd" => Self::Date,
            "yyyy-MM-dd HH:mm:ss" => Self::DateTime("%Y-%m-%d %H:%M:%S"),
            "yyyy-MM-dd'T'HH:mm:ss" => Self::DateTime("%Y-%m-%dT%H:%M:%S"),
            _ => return None,
        })
    }
}

/// How the bounds of a field with a `format` are read: its patterns, in a time zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    patterns: Vec<Pattern>,
    zone: Tz,
    /// The `format` as sent, for messages.
    written: String,
}

impl Reading {
    /// `format` and `time_zone` as sent: `None` without a format (bounds are then plain
    /// numbers), else how to read them; the error says which of the two is wrong and why.
    pub fn new(
        format: Option<&Value>,
        time_zone: Option<&Value>,
    ) -> Result<Option<Self>, (Which, String)> {
        let zone = match time_zone {
            None => zone::UTC,
            Some(name) => name.as_str().and_then(zone::parse).ok_or((
                Which::TimeZone,
                "is not an IANA time zone such as Europe/Zurich".to_owned(),
            ))?,
        };
        let Some(format) = format else {
            return Ok(None);
        };
        let text = format.as_str().unwrap_or_default();
        let patterns: Option<Vec<Pattern>> = text.split("||").map(Pattern::named).collect();
        match patterns {
            Some(patterns) if patterns.len() <= MAX_ALTERNATIVES => Ok(Some(Self {
                patterns,
                zone,
                written: text.to_owned(),
            })),
            _ => Err((
                Which::Format,
                format!(
                    "must be one of {}, or up to {MAX_ALTERNATIVES} of them joined by ||",
                    FORMATS.join(", ")
                ),
            )),
        }
    }

    /// `op value` (op one of `>`, `>=`, `<`, `<=`) as an operator on whole Unix seconds. A
    /// date without a time stands for its whole local day: `lte` and `gt` a date reach
    /// past its last second, `gte` and `lt` start at its first.
    pub fn bound(&self, op: &'static str, value: &Value) -> Result<(&'static str, i64), String> {
        let upper = op.starts_with('<');
        for pattern in &self.patterns {
            let found = match pattern {
                Pattern::EpochSecond => whole(value)
                    .filter(|s| (EARLIEST..=LATEST).contains(s))
                    .map(|s| (op, s)),
                Pattern::EpochMillis => whole(value)
                    .filter(|ms| (EARLIEST * 1000..=LATEST * 1000).contains(ms))
                    .map(|ms| millis(op, ms)),
                Pattern::Date => text(value)
                    .and_then(|t| {
                        NaiveDate::parse_from_str(t, "%Y-%m-%d")
                            .ok()
                            .filter(|_| t.len() == 10)
                    })
                    .and_then(|day| {
                        let next = day.checked_add_days(Days::new(1))?;
                        Some(match op {
                            ">=" | "<" => (op, zone::start_of_day(self.zone, day)),
                            _ => (
                                if upper { "<" } else { ">=" },
                                zone::start_of_day(self.zone, next),
                            ),
                        })
                    }),
                Pattern::DateTime(spec) => text(value)
                    .filter(|t| t.len() == 19)
                    .and_then(|t| NaiveDateTime::parse_from_str(t, spec).ok())
                    .map(|local| (op, instant(self.zone, local))),
            };
            if let Some(found) = found {
                return Ok(found);
            }
        }
        Err(format!(
            "must be {} between the years 1 and 9999",
            self.written
        ))
    }
}

/// Which of a reading's two settings was wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Format,
    TimeZone,
}

impl Which {
    /// Its key beside the bounds.
    pub fn key(self) -> &'static str {
        match self {
            Which::Format => "format",
            Which::TimeZone => "time_zone",
        }
    }
}

fn text(value: &Value) -> Option<&str> {
    value.as_str()
}

/// A JSON integer, or a string of digits with an optional minus: how a numeric field's
/// bound is written without a `format`.
pub fn whole(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse::<i64>().ok().filter(|_| !s.starts_with('+')),
        _ => None,
    }
}

/// Milliseconds as a bound on whole seconds: between two seconds, a lower bound lies above
/// the earlier one and an upper bound at it.
fn millis(op: &'static str, ms: i64) -> (&'static str, i64) {
    let (seconds, rest) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    match (rest, op.starts_with('<')) {
        (0, _) => (op, seconds),
        (_, true) => ("<=", seconds),
        (_, false) => (">", seconds),
    }
}

/// The instant a local time names in `zone`: the earlier one when the clocks go back, and
/// when they skip it, the instant they skip at (the first local minute after it).
fn instant(zone: Tz, local: NaiveDateTime) -> i64 {
    for minute in 0..=180 {
        if let Some(t) = zone
            .from_local_datetime(&(local + TimeDelta::minutes(minute)))
            .earliest()
        {
            // Past a skip, back to the minute the clocks skipped at.
            let seconds = if minute == 0 {
                0
            } else {
                t.timestamp().rem_euclid(60)
            };
            return t.timestamp() - seconds;
        }
    }
    local.and_utc().timestamp()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reading(format: &str, zone: Option<&str>) -> Reading {
        Reading::new(Some(&json!(format)), zone.map(|z| json!(z)).as_ref())
            .unwrap()
            .unwrap()
    }

    #[test]
    fn without_a_format_bounds_are_whole_numbers_or_digits() {
        assert_eq!(whole(&json!("1700000000")), Some(1_700_000_000));
        assert_eq!(whole(&json!(0)), Some(0));
        assert_eq!(whole(&json!("-5")), Some(-5));
        for bad in [
            json!("1.5"),
            json!("+5"),
            json!(1.5),
            json!("2024-01-01"),
            json!(true),
        ] {
            assert_eq!(whole(&bad), None, "{bad}");
        }
        assert_eq!(Reading::new(None, None), Ok(None));
        let seconds = reading("epoch_second", None);
        assert!(seconds.bound(">", &json!(LATEST + 1)).is_err());
    }

    #[test]
    fn a_date_is_its_whole_day_in_utc_or_the_zone_given() {
        let utc = reading("yyyy-MM-dd", None);
        // 2024-01-01T00:00Z and 2024-01-02T00:00Z.
        assert_eq!(
            utc.bound(">=", &json!("2024-01-01")),
            Ok((">=", 1_704_067_200))
        );
        assert_eq!(
            utc.bound("<", &json!("2024-01-01")),
            Ok(("<", 1_704_067_200))
        );
        assert_eq!(
            utc.bound("<=", &json!("2024-01-01")),
            Ok(("<", 1_704_153_600))
        );
        assert_eq!(
            utc.bound(">", &json!("2024-01-01")),
            Ok((">=", 1_704_153_600))
        );
        assert!(utc.bound(">=", &json!("2024-1-1")).is_err());
        assert!(utc.bound(">=", &json!("2024-02-30")).is_err());
        assert!(utc.bound(">=", &json!(20240101)).is_err());
        let zurich = reading("yyyy-MM-dd", Some("Europe/Zurich"));
        assert_eq!(
            zurich.bound(">=", &json!("2024-01-01")),
            Ok((">=", 1_704_063_600))
        );
    }

    #[test]
    fn times_epoch_millis_and_alternatives() {
        let t = reading("yyyy-MM-dd'T'HH:mm:ss", Some("Europe/Zurich"));
        assert_eq!(
            t.bound("<", &json!("2024-01-01T01:00:00")),
            Ok(("<", 1_704_067_200))
        );
        // 02:30 on 2024-03-31 does not exist in Zurich: the clocks skip from 02:00 to 03:00.
        assert_eq!(
            t.bound(">=", &json!("2024-03-31T02:30:00")),
            Ok((">=", 1_711_846_800))
        );
        let ms = reading("epoch_millis", None);
        assert_eq!(
            ms.bound(">=", &json!(1_700_000_000_000_i64)),
            Ok((">=", 1_700_000_000))
        );
        assert_eq!(
            ms.bound(">=", &json!("1700000000500")),
            Ok((">", 1_700_000_000))
        );
        assert_eq!(
            ms.bound("<", &json!(1_700_000_000_500_i64)),
            Ok(("<=", 1_700_000_000))
        );
        let either = reading("yyyy-MM-dd||epoch_second", None);
        assert_eq!(
            either.bound(">=", &json!("1704067200")),
            Ok((">=", 1_704_067_200))
        );
        assert_eq!(
            either.bound(">=", &json!("2024-01-01")),
            Ok((">=", 1_704_067_200))
        );
    }

    #[test]
    fn unknown_formats_and_zones_are_refused() {
        let five = ["epoch_second"; MAX_ALTERNATIVES + 1].join("||");
        for bad in [json!("dd.MM.yyyy"), json!(""), json!(5), json!(five)] {
            assert_eq!(
                Reading::new(Some(&bad), None).unwrap_err().0,
                Which::Format,
                "{bad}"
            );
        }
        assert_eq!(
            Reading::new(None, Some(&json!("Mars/Olympus")))
                .unwrap_err()
                .0,
            Which::TimeZone
        );
    }
}
