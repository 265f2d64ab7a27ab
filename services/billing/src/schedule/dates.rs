//! A subscription's charge dates. Each is a local calendar date computed from the stored
//! anchor (never from the previous, possibly clamped, date), and becomes an instant at
//! local midnight in the subscription's zone only at the end; so a daylight-saving change
//! moves the instant by an hour but never skips or repeats a date.

use chrono::{DateTime, Datelike, Days, Months, NaiveDate};
use coffer_model::zone::{self, Tz};

use super::interval::{Interval, midnight_utc};

fn days_in_month(year: i32, month: u32) -> u32 {
    NaiveDate::from_ymd_opt(year, month, 1)
        .and_then(|first| first.checked_add_months(Months::new(1)))
        .and_then(|next| next.pred_opt())
        .map_or(28, |last| last.day())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub interval: Interval,
    /// The first charge date; named intervals repeat its day of month (or weekday).
    pub anchor: NaiveDate,
}

impl Schedule {
    /// The first charge date on or after `date` (never before the anchor).
    pub fn on_or_after(&self, date: NaiveDate) -> Option<NaiveDate> {
        let date = date.max(self.anchor);
        match &self.interval {
            Interval::Weekly => {
                let days = (date - self.anchor).num_days();
                let weeks = u64::try_from((days + 6) / 7).ok()?;
                self.anchor.checked_add_days(Days::new(weeks * 7))
            }
            Interval::Months(step) => {
                let elapsed = (date.year() - self.anchor.year()) * 12
                    + i32::try_from(date.month()).ok()?
                    - i32::try_from(self.anchor.month()).ok()?;
                let first = u32::try_from(elapsed.max(0)).ok()? / step;
                // chrono clamps a day beyond the month's end to its last day.
                (first..first + 3)
                    .filter_map(|k| self.anchor.checked_add_months(Months::new(k * step)))
                    .find(|d| *d >= date)
            }
            Interval::Cron { day, weekday, .. } => match day.parse::<u32>() {
                Ok(d) if d > 28 && weekday == "*" => self.clamped(d, date),
                _ => {
                    let cron = self.interval.cron()?;
                    let next = cron.find_next_occurrence(&midnight_utc(date), true).ok()?;
                    Some(next.date_naive())
                }
            },
        }
    }

    /// The first charge date after `date`.
    pub fn after(&self, date: NaiveDate) -> Option<NaiveDate> {
        self.on_or_after(date.succ_opt()?)
    }

    /// A cron's fixed day of month beyond some months' end: the months come from the cron
    /// crate, the day is clamped to each month's length, as for named intervals.
    fn clamped(&self, day: u32, date: NaiveDate) -> Option<NaiveDate> {
        let Interval::Cron { month, .. } = &self.interval else {
            return None;
        };
        let months: croner::Cron = format!("0 0 1 {month} *").parse().ok()?;
        let mut from = date.with_day(1)?;
        for _ in 0..48 {
            let first = months
                .find_next_occurrence(&midnight_utc(from), true)
                .ok()?
                .date_naive();
            let candidate = first.with_day(day.min(days_in_month(first.year(), first.month())))?;
            if candidate >= date {
                return Some(candidate);
            }
            from = first.checked_add_months(Months::new(1))?;
        }
        None
    }
}

/// The local date in `zone` at the instant `unix`.
pub fn local_date(zone: Tz, unix: i64) -> NaiveDate {
    DateTime::from_timestamp(unix, 0)
        .map(|utc| utc.with_timezone(&zone).date_naive())
        .unwrap_or_default()
}

/// The instant a charge date begins in `zone`.
pub fn due_instant(zone: Tz, date: NaiveDate) -> i64 {
    zone::start_of_day(zone, date)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn series(schedule: &Schedule, n: usize) -> Vec<NaiveDate> {
        let mut out = vec![schedule.on_or_after(schedule.anchor).unwrap()];
        while out.len() < n {
            let last = *out.last().unwrap();
            out.push(schedule.after(last).unwrap());
        }
        out
    }

    #[test]
    fn month_ends_clamp_without_drifting() {
        let monthly = Schedule {
            interval: Interval::Months(1),
            anchor: date(2027, 1, 31),
        };
        assert_eq!(
            series(&monthly, 5),
            [
                date(2027, 1, 31),
                date(2027, 2, 28),
                date(2027, 3, 31),
                date(2027, 4, 30),
                date(2027, 5, 31)
            ]
        );
        let leap = Schedule {
            interval: Interval::Months(1),
            anchor: date(2028, 1, 30),
        };
        assert_eq!(
            series(&leap, 3),
            [date(2028, 1, 30), date(2028, 2, 29), date(2028, 3, 30)]
        );
        let yearly = Schedule {
            interval: Interval::Months(12),
            anchor: date(2028, 2, 29),
        };
        assert_eq!(
            series(&yearly, 3),
            [date(2028, 2, 29), date(2029, 2, 28), date(2030, 2, 28)]
        );
        let quarterly = Schedule {
            interval: Interval::Months(3),
            anchor: date(2026, 11, 30),
        };
        assert_eq!(
            series(&quarterly, 3),
            [date(2026, 11, 30), date(2027, 2, 28), date(2027, 5, 30)]
        );
    }

    #[test]
    fn weekly_and_cron_dates() {
        let weekly = Schedule {
            interval: Interval::Weekly,
            anchor: date(2026, 3, 27),
        };
        assert_eq!(weekly.after(date(2026, 3, 27)), Some(date(2026, 4, 3)));
        assert_eq!(
            weekly.on_or_after(date(2026, 4, 4)),
            Some(date(2026, 4, 10))
        );
        let last_day = Schedule {
            interval: Interval::parse("L * *").unwrap(),
            anchor: date(2027, 1, 10),
        };
        assert_eq!(
            series(&last_day, 3),
            [date(2027, 1, 31), date(2027, 2, 28), date(2027, 3, 31)]
        );
        let every_other = Schedule {
            interval: Interval::parse("15 */2 *").unwrap(),
            anchor: date(2026, 2, 1),
        };
        assert_eq!(
            series(&every_other, 3),
            [date(2026, 3, 15), date(2026, 5, 15), date(2026, 7, 15)]
        );
        let thirty_first = Schedule {
            interval: Interval::parse("31 * *").unwrap(),
            anchor: date(2027, 1, 5),
        };
        assert_eq!(
            series(&thirty_first, 4),
            [
                date(2027, 1, 31),
                date(2027, 2, 28),
                date(2027, 3, 31),
                date(2027, 4, 30)
            ]
        );
        let mondays = Schedule {
            interval: Interval::parse("* * 1").unwrap(),
            anchor: date(2026, 3, 25),
        };
        assert_eq!(series(&mondays, 2), [date(2026, 3, 30), date(2026, 4, 6)]);
    }

    #[test]
    fn local_midnight_moves_with_daylight_saving_but_dates_do_not() {
        let zurich = zone::parse("Europe/Zurich").unwrap();
        let weekly = Schedule {
            interval: Interval::Weekly,
            anchor: date(2026, 3, 23),
        };
        let instants: Vec<i64> = series(&weekly, 3)
            .into_iter()
            .map(|d| due_instant(zurich, d))
            .collect();
        // 23 March 00:00 CET, 30 March 00:00 CEST: one week less one hour apart.
        assert_eq!(instants[1] - instants[0], 7 * 86_400 - 3_600);
        assert_eq!(instants[2] - instants[1], 7 * 86_400);
        let new_york = zone::parse("America/New_York").unwrap();
        let monthly = Schedule {
            interval: Interval::Months(1),
            anchor: date(2026, 10, 1),
        };
        let nov = due_instant(new_york, monthly.after(date(2026, 10, 1)).unwrap());
        assert_eq!(nov, 1_793_505_600); // 2026-11-01T04:00Z, the night the clocks go back
    }
}
