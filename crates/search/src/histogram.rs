//! `date_histogram`: payments per local day, week (Monday first) or month of a time zone.
//! The database groups by local day, using the zone's offsets over the matched range;
//! days are then gathered into weeks or months here, where the calendar is at hand.

use std::collections::BTreeMap;

use chrono::{Datelike, Days, NaiveDate};
use coffer_model::zone::{self, Tz};
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    Day,
    Week,
    Month,
}

impl Interval {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "day" => Some(Self::Day),
            "week" => Some(Self::Week),
            "month" => Some(Self::Month),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Histogram {
    pub interval: Interval,
    pub zone: Tz,
}

/// SQL for the local day number (days since 1970-01-01) of `created`, valid for
/// `from..=to`: one offset per stretch the zone keeps the same offset. Only integers
/// computed here are written into the text.
pub fn local_day_sql(zone: Tz, from: i64, to: i64) -> String {
    let spans = zone::offset_spans(zone, from, to);
    let day = |offset: i32| format!("(created + {offset}) / 86400");
    match spans.as_slice() {
        [] => day(0),
        [(_, only)] => day(*only),
        [first, rest @ ..] => {
            let mut sql = String::from("CASE");
            let mut offset = first.1;
            for (start, next) in rest {
                sql.push_str(&format!(" WHEN created < {start} THEN {}", day(offset)));
                offset = *next;
            }
            sql.push_str(&format!(" ELSE {} END", day(offset)));
            sql
        }
    }
}

fn bucket_of(interval: Interval, date: NaiveDate) -> NaiveDate {
    match interval {
        Interval::Day => date,
        Interval::Week => date
            .checked_sub_days(Days::new(u64::from(date.weekday().num_days_from_monday())))
            .unwrap_or(date),
        Interval::Month => date.with_day(1).unwrap_or(date),
    }
}

/// Counts per local day gathered into the histogram's buckets, oldest first. `key` is the
/// instant the bucket begins, `key_as_string` its first local date.
pub fn buckets(histogram: Histogram, days: &[(i64, i64)]) -> Vec<Value> {
    let mut counts: BTreeMap<NaiveDate, i64> = BTreeMap::new();
    for &(day, n) in days {
        if let Some(date) = zone::date_of_day(day) {
            *counts
                .entry(bucket_of(histogram.interval, date))
                .or_default() += n;
        }
    }
    counts
        .into_iter()
        .map(|(start, n)| {
            json!({
                "key": zone::start_of_day(histogram.zone, start),
                "key_as_string": start.format("%Y-%m-%d").to_string(),
                "doc_count": n,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn one_offset_is_plain_arithmetic_and_a_change_is_a_case() {
        let utc = zone::parse("UTC").unwrap();
        assert_eq!(local_day_sql(utc, 0, 10_000_000), "(created + 0) / 86400");
        let zurich = zone::parse("Europe/Zurich").unwrap();
        // 2026-03-01 to 2026-04-30: summer time from 2026-03-29T01:00Z.
        assert_eq!(
            local_day_sql(zurich, 1_772_323_200, 1_777_507_200),
            "CASE WHEN created < 1774746000 THEN (created + 3600) / 86400 \
             ELSE (created + 7200) / 86400 END"
        );
    }

    #[test]
    fn days_gather_into_monday_weeks_and_months() {
        let zurich = zone::parse("Europe/Zurich").unwrap();
        // Local days 20454 (Thu 2026-01-01), 20458 (Mon 01-05), 20485 (Sun 02-01).
        let days = [(20_454, 2), (20_458, 3), (20_485, 4)];
        let weeks = buckets(
            Histogram {
                interval: Interval::Week,
                zone: zurich,
            },
            &days,
        );
        let starts: Vec<&str> = weeks
            .iter()
            .map(|b| b["key_as_string"].as_str().unwrap())
            .collect();
        assert_eq!(starts, ["2025-12-29", "2026-01-05", "2026-01-26"]);
        let months = buckets(
            Histogram {
                interval: Interval::Month,
                zone: zurich,
            },
            &days,
        );
        assert_eq!(months[0]["doc_count"], 5);
        assert_eq!(months[0]["key"], 1_767_222_000); // 2026-01-01T00:00+01:00
        assert_eq!(months[1]["key_as_string"], "2026-02-01");
    }
}
