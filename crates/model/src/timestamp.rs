//! Responses carry instants as Unix seconds; requests carry calendar dates as `YYYY-MM-DD`.

use crate::serde_str::deserialize_parsed;
use crate::validation::FieldError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use time::OffsetDateTime;

/// Seconds since the Unix epoch, a plain JSON integer on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnixSeconds(pub i64);

impl From<OffsetDateTime> for UnixSeconds {
    fn from(at: OffsetDateTime) -> Self {
        Self(at.unix_timestamp())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    #[error("a date must be written as YYYY-MM-DD")]
    Format,
    #[error("the date does not exist in the calendar")]
    NoSuchDay,
    #[error("the date must be between 1970-01-01 and 2199-12-31")]
    OutOfRange,
}

/// The years a request may name. Every date Coffer takes in plans work (charge dates, a
/// suspension, a clock's time), so none may lie where that work would never end or where
/// calendars stop: 1970 is the Unix epoch, and 2199 is past any donor's horizon.
pub const FIRST_YEAR: i32 = 1970;
pub const LAST_YEAR: i32 = 2199;
/// The last second of [`LAST_YEAR`] (2199-12-31T23:59:59Z), the latest instant a request
/// may name.
pub const LAST_INSTANT: i64 = 7_258_118_399;

/// A calendar date without time zone; the caller decides which zone's midnight it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date(time::Date);

impl Date {
    /// Exactly four year digits, two month digits and two day digits, so each date has one
    /// spelling and `2024-2-1` or a trailing time is refused instead of silently trimmed.
    pub fn parse_str(raw: &str) -> Result<Date, DateError> {
        let bytes = raw.as_bytes();
        let shape_ok = bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        if !shape_ok {
            return Err(DateError::Format);
        }
        let number = |range: std::ops::Range<usize>| {
            raw.get(range)
                .and_then(|s| s.parse::<u16>().ok())
                .ok_or(DateError::Format)
        };
        let year = i32::from(number(0..4)?);
        if !(FIRST_YEAR..=LAST_YEAR).contains(&year) {
            return Err(DateError::OutOfRange);
        }
        let month = u8::try_from(number(5..7)?).map_err(|_| DateError::NoSuchDay)?;
        let day = u8::try_from(number(8..10)?).map_err(|_| DateError::NoSuchDay)?;
        let month = time::Month::try_from(month).map_err(|_| DateError::NoSuchDay)?;
        time::Date::from_calendar_date(year, month, day)
            .map(Date)
            .map_err(|_| DateError::NoSuchDay)
    }

    pub fn parse(property: &str, raw: &str) -> Result<Date, FieldError> {
        Self::parse_str(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    /// Only years 0 to 9999 have a `YYYY-MM-DD` spelling, so only those are representable.
    pub fn new(date: time::Date) -> Result<Date, DateError> {
        if (0..=9999).contains(&date.year()) {
            Ok(Date(date))
        } else {
            Err(DateError::Format)
        }
    }

    pub fn as_time(&self) -> time::Date {
        self.0
    }

    /// The first second of this date in UTC.
    pub fn midnight_utc(&self) -> UnixSeconds {
        UnixSeconds::from(self.0.midnight().assume_utc())
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}",
            self.0.year(),
            u8::from(self.0.month()),
            self.0.day()
        )
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_parsed(deserializer, Self::parse_str)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    #[test]
    fn unix_seconds_is_a_json_integer() {
        let at = UnixSeconds::from(datetime!(2024-01-01 0:00 UTC));
        assert_eq!(at, UnixSeconds(1_704_067_200));
        assert_eq!(serde_json::to_string(&at).unwrap(), "1704067200");
        assert_eq!(
            serde_json::from_str::<UnixSeconds>("1704067200").unwrap(),
            at
        );
        assert!(serde_json::from_str::<UnixSeconds>("\"1704067200\"").is_err());
    }

    #[test]
    fn parses_valid_dates() {
        assert_eq!(
            Date::parse_str("2024-02-29").unwrap().as_time(),
            date!(2024 - 02 - 29)
        );
        assert_eq!(
            Date::parse_str("1970-01-01").unwrap().as_time(),
            date!(1970 - 01 - 01)
        );
        assert_eq!(
            Date::parse_str("2199-12-31").unwrap().as_time(),
            date!(2199 - 12 - 31)
        );
    }

    #[test]
    fn the_last_instant_ends_the_last_year() {
        let last = time::OffsetDateTime::from_unix_timestamp(LAST_INSTANT).unwrap();
        assert_eq!(
            (last.year(), last.ordinal(), last.hour()),
            (LAST_YEAR, 365, 23)
        );
        assert_eq!((last.minute(), last.second()), (59, 59));
    }

    #[test]
    fn rejects_years_outside_the_bound() {
        for raw in [
            "0000-01-01",
            "0001-01-01",
            "1969-12-31",
            "2200-01-01",
            "9999-12-31",
        ] {
            assert_eq!(Date::parse_str(raw), Err(DateError::OutOfRange), "{raw}");
        }
    }

    #[test]
    fn rejects_loose_shapes() {
        for raw in [
            "",
            "2024-2-1",
            "2024-02-1",
            "24-02-01",
            "2024/02/01",
            "2024-02-01T00:00:00",
            "2024-02-01 ",
            " 2024-02-01",
            "+024-02-01",
            "2024-0a-01",
            "20240201",
        ] {
            assert_eq!(Date::parse_str(raw), Err(DateError::Format), "{raw:?}");
        }
    }

    #[test]
    fn rejects_impossible_days() {
        for raw in [
            "2024-02-30",
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-00",
        ] {
            assert_eq!(Date::parse_str(raw), Err(DateError::NoSuchDay), "{raw}");
        }
    }

    #[test]
    fn serde_round_trip() {
        let d: Date = serde_json::from_str("\"2024-03-05\"").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"2024-03-05\"");
        assert!(serde_json::from_str::<Date>("\"2024-3-5\"").is_err());
    }

    #[test]
    fn parse_names_the_property() {
        let err = Date::parse("planned_end", "tomorrow").unwrap_err();
        assert_eq!(err.property, "planned_end");
        assert_eq!(err.code, crate::validation::codes::NOT_VALID);
    }

    #[test]
    fn new_limits_years_to_four_digits() {
        assert!(Date::new(date!(2024 - 01 - 01)).is_ok());
        assert!(Date::new(date!(-0001 - 01 - 01)).is_err());
        assert_eq!(
            Date::new(date!(0042 - 07 - 04)).unwrap().to_string(),
            "0042-07-04"
        );
        assert_eq!(
            Date::new(date!(2024 - 01 - 01)).unwrap().midnight_utc(),
            UnixSeconds(1_704_067_200)
        );
    }
}
