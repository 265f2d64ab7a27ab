//! `recurring_interval` as a subscription is created with it: a named interval (weekly,
//! monthly, quarterly, semestral, yearly), anchored at the subscription's first date, or
//! the last three fields of a cron expression (day of month, month, day of week), checked
//! by the cron crate. Pure: no clock, no zone.

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, Utc};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interval {
    /// Every `months` months on the anchor's day of month, clamped to shorter months.
    Months(u32),
    /// Every seven days from the anchor.
    Weekly,
    /// The dates a cron expression matches (`0 0 <day> <month> <weekday>`).
    Cron {
        day: String,
        month: String,
        weekday: String,
    },
}

/// The start of `date` in UTC: where a cron pattern is asked for its next match. The
/// cron crate counts in instants; the schedule's dates are calendar dates.
pub(crate) fn midnight_utc(date: NaiveDate) -> DateTime<Utc> {
    date.and_time(NaiveTime::MIN).and_utc()
}

/// Why a `recurring_interval` was refused, for the 400 naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntervalError(pub String);

impl Interval {
    pub fn parse(text: &str) -> Result<Self, IntervalError> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "weekly" => return Ok(Self::Weekly),
            "monthly" => return Ok(Self::Months(1)),
            "quarterly" => return Ok(Self::Months(3)),
            "semestral" => return Ok(Self::Months(6)),
            "yearly" => return Ok(Self::Months(12)),
            _ => {}
        }
        let parts: Vec<&str> = text.split_whitespace().collect();
        // The five-field form a response shows is taken back as well, when it is at
        // midnight: a client may send what it read.
        let parts = match parts.as_slice() {
            [day, month, weekday] => [*day, *month, *weekday],
            ["0", "0", day, month, weekday] => [*day, *month, *weekday],
            _ => {
                return Err(IntervalError(
                    "must be weekly, monthly, quarterly, semestral, yearly or three cron fields \
                     (day of month, month, day of week), such as \"15 */2 *\""
                        .into(),
                ));
            }
        };
        let interval = Self::Cron {
            day: parts[0].to_owned(),
            month: parts[1].to_owned(),
            weekday: parts[2].to_owned(),
        };
        let cron = interval
            .cron()
            .ok_or_else(|| IntervalError("is not a valid cron expression".into()))?;
        // A pattern that names no real date (the 30th of February) would never charge.
        let start = NaiveDate::from_ymd_opt(2000, 1, 1).map(midnight_utc);
        let matches = start.is_some_and(|s| cron.find_next_occurrence(&s, true).is_ok());
        if !matches {
            return Err(IntervalError("matches no date".into()));
        }
        Ok(interval)
    }

    /// The cron crate's reading of a cron interval.
    pub(crate) fn cron(&self) -> Option<croner::Cron> {
        match self {
            Self::Cron {
                day,
                month,
                weekday,
            } => format!("0 0 {day} {month} {weekday}").parse().ok(),
            _ => None,
        }
    }

    /// The five-field cron expression responses show, anchored at `anchor` for the named
    /// intervals: monthly from 15 February is `0 0 15 * *`, quarterly `0 0 15 2/3 *`.
    pub fn long_form(&self, anchor: NaiveDate) -> String {
        let day = anchor.day();
        // Steps start at the cycle's first month of the year, so that every month of the
        // cycle is named (quarterly from November: February, May, August, November).
        let first_month = |months: u32| (anchor.month() - 1) % months + 1;
        match self {
            Self::Weekly => format!("0 0 * * {}", anchor.weekday().num_days_from_sunday()),
            Self::Months(1) => format!("0 0 {day} * *"),
            Self::Months(12) => format!("0 0 {day} {} *", anchor.month()),
            Self::Months(n) => format!("0 0 {day} {}/{n} *", first_month(*n)),
            Self::Cron {
                day,
                month,
                weekday,
            } => format!("0 0 {day} {month} {weekday}"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn named_intervals_show_a_cron_anchored_at_the_start() {
        let feb15 = date(2026, 2, 15);
        assert_eq!(
            Interval::parse("monthly").unwrap().long_form(feb15),
            "0 0 15 * *"
        );
        assert_eq!(
            Interval::parse("quarterly").unwrap().long_form(feb15),
            "0 0 15 2/3 *"
        );
        assert_eq!(
            Interval::parse("semestral").unwrap().long_form(feb15),
            "0 0 15 2/6 *"
        );
        assert_eq!(
            Interval::parse("Yearly").unwrap().long_form(feb15),
            "0 0 15 2 *"
        );
        // 2026-02-15 is a Sunday.
        assert_eq!(
            Interval::parse("weekly").unwrap().long_form(feb15),
            "0 0 * * 0"
        );
        let nov30 = date(2026, 11, 30);
        assert_eq!(
            Interval::parse("quarterly").unwrap().long_form(nov30),
            "0 0 30 2/3 *"
        );
    }

    #[test]
    fn three_cron_fields_are_checked_by_the_cron_crate() {
        for ok in [
            "15 * *",
            "L * *",
            "1 */2 *",
            "1 2/3 *",
            "* * 1",
            "1,15 * *",
            "0 0 15 2/3 *",
        ] {
            assert!(Interval::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            Interval::parse("0 0 15 2/3 *")
                .unwrap()
                .long_form(date(2026, 1, 1)),
            "0 0 15 2/3 *"
        );
        for bad in [
            "",
            "fortnightly",
            "15 *",
            "32 * *",
            "15 13 *",
            "30 2 *",
            "x y z",
        ] {
            assert!(Interval::parse(bad).is_err(), "{bad:?}");
        }
    }
}
