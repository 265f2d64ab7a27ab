//! Booking and value dates. Banks give either `<Dt>` (an xs:date, sometimes with a zone) or
//! `<DtTm>` (an xs:dateTime with or without zone, with any number of fraction digits). Both
//! yield the calendar date as written: a booking at `2023-06-21T00:30+02:00` was booked on
//! the 21st for the bank and the account holder, so it is not moved to UTC.

use time::{Date, Month};

/// `None` when the text is not a date or date-time.
pub(crate) fn parse_date_or_date_time(text: &str) -> Option<Date> {
    let bytes = text.as_bytes();
    let date = calendar_date(bytes.get(..10)?)?;
    let rest = &bytes[10..];
    let valid_rest = match rest.first() {
        None => true,
        Some(b'T') => is_time(&rest[1..]),
        Some(_) => is_zone(rest),
    };
    valid_rest.then_some(date)
}

/// `YYYY-MM-DD`, with a real day of a real month.
fn calendar_date(bytes: &[u8]) -> Option<Date> {
    if bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year = digits(&bytes[0..4])?;
    let month = Month::try_from(u8::try_from(digits(&bytes[5..7])?).ok()?).ok()?;
    let day = u8::try_from(digits(&bytes[8..10])?).ok()?;
    Date::from_calendar_date(i32::try_from(year).ok()?, month, day).ok()
}

/// `hh:mm:ss`, optional fraction, optional zone.
fn is_time(bytes: &[u8]) -> bool {
    let Some(hms) = bytes.get(..8) else {
        return false;
    };
    let fields_ok = hms[2] == b':'
        && hms[5] == b':'
        && matches!(digits(&hms[0..2]), Some(h) if h <= 24)
        && matches!(digits(&hms[3..5]), Some(m) if m <= 59)
        // 60 allows a leap second.
        && matches!(digits(&hms[6..8]), Some(s) if s <= 60);
    if !fields_ok {
        return false;
    }
    let mut rest = &bytes[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let count = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    rest.is_empty() || is_zone(rest)
}

/// `Z` or `±hh:mm`.
fn is_zone(bytes: &[u8]) -> bool {
    match bytes {
        b"Z" => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!(digits(&[*h1, *h2]), Some(h) if h <= 14)
                && matches!(digits(&[*m1, *m2]), Some(m) if m <= 59)
        }
        _ => false,
    }
}

fn digits(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use time::macros::date;

    #[test]
    fn reads_dates_and_date_times() {
        let cases = [
            ("2014-12-31", date!(2014 - 12 - 31)),
            ("2014-12-31+01:00", date!(2014 - 12 - 31)),
            ("2014-12-31Z", date!(2014 - 12 - 31)),
            ("2023-06-21T12:35:33.115965+00:00", date!(2023 - 06 - 21)),
            ("2025-07-24T06:10:29.000000000", date!(2025 - 07 - 24)),
            ("2023-07-06T10:27:07.213294607Z", date!(2023 - 07 - 06)),
            ("2007-10-18T00:30:00-05:00", date!(2007 - 10 - 18)),
            ("2024-02-29T23:59:60", date!(2024 - 02 - 29)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_date_or_date_time(text), Some(expected), "{text}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_date() {
        for text in [
            "",
            "2014-12",
            "2014-13-01",
            "2023-02-29",
            "31.12.2014",
            "2014/12/31",
            "2014-12-31T",
            "2014-12-31T12:00",
            "2014-12-31T12:00:00.",
            "2014-12-31T12:00:00+1",
            "2014-12-31 12:00:00",
            "２０１４-12-31",
            "2014-12-3é",
        ] {
            assert_eq!(parse_date_or_date_time(text), None, "{text:?}");
        }
    }
}
