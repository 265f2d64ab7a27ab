//! Answers read from roll-ups: the total, term buckets of a counted column, stats of the
//! summed column and a date histogram, each from three parts read in the search's one
//! snapshot: the folded rows of whole days, the changes not folded yet of those days,
//! and the payments themselves in the edges of days a `created` bound cuts.

use std::collections::BTreeMap;

use coffer_model::zone;
use coffer_store::Db;
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Binary, Nullable, Text};
use serde_json::Value;

use super::quarters::{self, PER_DAY, QUARTER};
use super::span::{DAY, Days, Span, Split};
use super::tables::Rollups;
use crate::answer::{SUM_SPLIT, bucket, stats};
use crate::fetch::load;
use crate::filter::{Field, Filter};
use crate::histogram::{self, Histogram};
use crate::sql::{Bind, Builder};

/// What one search reads roll-ups with: the caller's organisations and the split filter.
pub struct Reading<'a> {
    pub rollups: &'a Rollups,
    pub table: &'a str,
    pub visible: Option<&'a [String]>,
    pub filter: &'a Filter,
    pub split: &'a Split,
    pub days: Days,
}

#[derive(QueryableByName)]
struct Total {
    #[diesel(sql_type = Nullable<BigInt>)]
    n: Option<i64>,
}

#[derive(QueryableByName)]
struct Keyed {
    #[diesel(sql_type = Nullable<Text>)]
    k: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    n: Option<i64>,
}

#[derive(QueryableByName)]
struct Summed {
    #[diesel(sql_type = Nullable<BigInt>)]
    high: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    low: Option<i64>,
}

#[derive(QueryableByName)]
struct Extreme {
    #[diesel(sql_type = Nullable<BigInt>)]
    v: Option<i64>,
}

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = BigInt)]
    day: i64,
    #[diesel(sql_type = Binary)]
    quarters: Vec<u8>,
}

#[derive(QueryableByName)]
struct Edged {
    #[diesel(sql_type = Nullable<BigInt>)]
    lo: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    hi: Option<i64>,
}

#[derive(QueryableByName)]
struct QuarterRow {
    #[diesel(sql_type = BigInt)]
    quarter: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    n: Option<i64>,
}

/// Day numbers `first..end` as SQL over `column`, scaled by `per_day` (1 for days, 96 for
/// quarters). Only numbers computed here are written into the text.
fn within(column: &str, whole: (Option<i64>, Option<i64>), per_day: i64) -> String {
    let mut sql = Vec::new();
    if let Some(first) = whole.0 {
        sql.push(format!("{column} >= {}", first.saturating_mul(per_day)));
    }
    if let Some(end) = whole.1 {
        sql.push(format!("{column} < {}", end.saturating_mul(per_day)));
    }
    if sql.is_empty() {
        "1 = 1".to_owned()
    } else {
        sql.join(" AND ")
    }
}

fn edges_sql(edges: &[Span]) -> String {
    let one = |s: &Span| {
        let mut sql = Vec::new();
        if let Some(f) = s.from {
            sql.push(format!("created >= {f}"));
        }
        if let Some(u) = s.until {
            sql.push(format!("created < {u}"));
        }
        format!("({})", sql.join(" AND "))
    };
    format!(
        "({})",
        edges.iter().map(one).collect::<Vec<_>>().join(" OR ")
    )
}

impl Reading<'_> {
    /// The tenant and the counted conditions, for any roll-up table.
    pub(super) fn counted(&self, db: &Db<'_>) -> diesel::QueryResult<(String, Vec<Bind>)> {
        let mut b = Builder::new(db.backend());
        let tenant = b.tenant(self.visible);
        let condition = b.filter(&self.split.counted).map_err(invalid)?;
        Ok((format!("{tenant} AND {condition}"), b.binds))
    }

    /// The tenant and the whole filter, for the payments in the edges.
    fn rows(&self, db: &Db<'_>) -> diesel::QueryResult<(String, Vec<Bind>)> {
        let mut b = Builder::new(db.backend());
        let tenant = b.tenant(self.visible);
        let condition = b.filter(self.filter).map_err(invalid)?;
        Ok((
            format!(
                "{tenant} AND {condition} AND {}",
                edges_sql(&self.days.edges)
            ),
            b.binds,
        ))
    }

    /// `select` (naming the counted group's columns or none) over the folded days, then
    /// over the changes, then `row_select` over the edges' payments; each with `tail`.
    fn three<R>(
        &self,
        db: &mut Db<'_>,
        (days_select, changes_select, row_select): (&str, &str, &str),
        tail: &str,
    ) -> diesel::QueryResult<Vec<R>>
    where
        R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
    {
        let mut found = Vec::new();
        if let Some(whole) = self.days.whole {
            let (cond, binds) = self.counted(db)?;
            let (days, changes) = (self.rollups.days, self.rollups.changes);
            let in_days = within("day", whole, 1);
            let in_quarters = within("quarter", whole, PER_DAY as i64);
            found.extend(load::<R>(
                db,
                &format!("SELECT {days_select} FROM {days} WHERE {cond} AND {in_days} {tail}"),
                &binds,
            )?);
            found.extend(load::<R>(
                db,
                &format!(
                    "SELECT {changes_select} FROM {changes} WHERE {cond} AND {in_quarters} {tail}"
                ),
                &binds,
            )?);
        }
        if !self.days.edges.is_empty() {
            let (cond, binds) = self.rows(db)?;
            let table = self.table;
            found.extend(load::<R>(
                db,
                &format!("SELECT {row_select} FROM {table} WHERE {cond} {tail}"),
                &binds,
            )?);
        }
        Ok(found)
    }

    /// Payments in the counted groups and the span (a split without a parameter).
    pub fn total(&self, db: &mut Db<'_>) -> diesel::QueryResult<i64> {
        let sum = "CAST(SUM(n) AS BIGINT) AS n";
        let parts: Vec<Total> = self.three(db, (sum, sum, "COUNT(*) AS n"), "")?;
        Ok(parts.iter().filter_map(|t| t.n).sum())
    }

    /// The `size` most frequent values of counted column `field`, most first, ties by key.
    pub fn term(&self, db: &mut Db<'_>, field: &Field, size: i64) -> diesel::QueryResult<Value> {
        let Field::Column { name, .. } = field else {
            return Ok(Value::Array(Vec::new()));
        };
        let folded = format!("CAST({name} AS TEXT) AS k, CAST(SUM(n) AS BIGINT) AS n");
        let rows = format!("CAST({name} AS TEXT) AS k, COUNT(*) AS n");
        let parts: Vec<Keyed> =
            self.three(db, (&folded, &folded, &rows), &format!("GROUP BY {name}"))?;
        let mut counts: BTreeMap<Option<String>, i64> = BTreeMap::new();
        for part in parts {
            *counts.entry(part.k).or_default() += part.n.unwrap_or(0);
        }
        let mut ranked: Vec<(Option<String>, i64)> =
            counts.into_iter().filter(|(_, n)| *n > 0).collect();
        // Most first; among equals, by key as the databases compare text bytewise.
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(usize::try_from(size).unwrap_or(0));
        Ok(Value::Array(
            ranked
                .into_iter()
                .map(|(k, n)| bucket(field, k, n))
                .collect(),
        ))
    }

    /// Stats of the summed column: the count is the search's `total` (read from these
    /// roll-ups already), the sum from the roll-ups, the least and the most from the
    /// payments (an index on them finds each at once).
    pub fn stats(
        &self,
        db: &mut Db<'_>,
        (where_, binds): (&str, &[Bind]),
        count: i64,
    ) -> diesel::QueryResult<Value> {
        let column = self.rollups.summed;
        let folded =
            "CAST(SUM(amount_high) AS BIGINT) AS high, CAST(SUM(amount_low) AS BIGINT) AS low";
        let rows = format!(
            "CAST(SUM({column} / {SUM_SPLIT}) AS BIGINT) AS high, \
             CAST(SUM({column} % {SUM_SPLIT}) AS BIGINT) AS low"
        );
        let parts: Vec<Summed> = self.three(db, (folded, folded, &rows), "")?;
        let sum = parts
            .iter()
            .fold(None, |acc: Option<i128>, p| match (p.high, p.low) {
                (Some(high), Some(low)) => Some(
                    acc.unwrap_or(0) + i128::from(high) * i128::from(SUM_SPLIT) + i128::from(low),
                ),
                _ => acc,
            });
        // SQLite finds a MIN or a MAX through an index only when it is the one aggregate.
        let table = self.table;
        let mut extreme = |f: &str| -> diesel::QueryResult<Option<i64>> {
            let sql = format!("SELECT {f}({column}) AS v FROM {table} WHERE {where_}");
            Ok(load::<Extreme>(db, &sql, binds)?.first().and_then(|e| e.v))
        };
        let (min, max) = (extreme("MIN")?, extreme("MAX")?);
        Ok(stats(count, min, max, sum.filter(|_| count > 0)))
    }

    /// Payments per local day of `histogram`'s zone, gathered into its buckets; `None`
    /// when the zone changes its offset within a quarter hour of the span (no modern zone
    /// does), which the quarters cannot split.
    pub fn histogram(
        &self,
        db: &mut Db<'_>,
        histogram: Histogram,
        max_span: i64,
    ) -> Result<Option<Vec<Value>>, Faulted> {
        let (mut folded, mut pending) = (Vec::new(), Vec::new());
        if let Some(whole) = self.days.whole {
            let (cond, binds) = self.counted(db)?;
            let (days, changes) = (self.rollups.days, self.rollups.changes);
            folded = load::<DayRow>(
                db,
                &format!(
                    "SELECT day, quarters FROM {days} WHERE {cond} AND {}",
                    within("day", whole, 1)
                ),
                &binds,
            )?;
            pending = load::<QuarterRow>(
                db,
                &format!(
                    "SELECT quarter, CAST(SUM(n) AS BIGINT) AS n FROM {changes} WHERE {cond} \
                     AND {} GROUP BY quarter",
                    within("quarter", whole, PER_DAY as i64)
                ),
                &binds,
            )?;
        }
        // The edges' payments as they are, not the bounds asked for: a far bound
        // (`lte: 9999999999`) must not widen the span.
        let edged = if self.days.edges.is_empty() {
            Vec::new()
        } else {
            let (cond, binds) = self.rows(db)?;
            let table = self.table;
            load::<Edged>(
                db,
                &format!("SELECT MIN(created) AS lo, MAX(created) AS hi FROM {table} WHERE {cond}"),
                &binds,
            )?
        };
        let Some((lo, hi)) = bounds(&folded, &pending, &edged) else {
            return Ok(Some(Vec::new()));
        };
        if hi - lo > max_span {
            return Err(Faulted::TooWide);
        }
        // Quarters add into local days only where the zone's offsets and their changes
        // fall on quarter hours (every zone today; not local mean time of old).
        let spans = zone::offset_spans(histogram.zone, lo, hi);
        let on_quarters = |offset: i32| i64::from(offset) % QUARTER == 0;
        let quartered = spans.iter().enumerate().all(|(i, (at, offset))| {
            // The first span starts where the histogram does, not at a change.
            (i == 0 || at % QUARTER == 0) && on_quarters(*offset)
        });
        if !quartered {
            return Ok(None);
        }
        // Local days are counted in one array from the first that can occur: offsets
        // are within a day of UTC either way.
        let first = lo.div_euclid(DAY) - 1;
        let width = hi.div_euclid(DAY) - lo.div_euclid(DAY) + 3;
        let mut local = vec![0i64; usize::try_from(width).unwrap_or(0)];
        let mut count = |quarter: i64, n: i64| {
            let at = quarter * QUARTER;
            let day = (at + i64::from(offset_in(&spans, at))).div_euclid(DAY) - first;
            if let Some(slot) = usize::try_from(day).ok().and_then(|d| local.get_mut(d)) {
                *slot += n;
            }
        };
        for row in &folded {
            let counts = quarters::decode(&row.quarters).ok_or(Faulted::Damaged)?;
            for (q, &n) in counts.iter().enumerate() {
                if n > 0 {
                    count(
                        row.day * PER_DAY as i64 + q as i64,
                        i64::try_from(n).unwrap_or(i64::MAX),
                    );
                }
            }
        }
        for row in &pending {
            // Negative until folded with the payments they undo, counted here alike.
            count(row.quarter, row.n.unwrap_or(0));
        }
        let mut days: Vec<(i64, i64)> = local
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(d, n)| (first + d as i64, *n))
            .collect();
        if edged.iter().any(|e| e.lo.is_some()) {
            let (cond, binds) = self.rows(db)?;
            let day = histogram::local_day_sql(histogram.zone, lo, hi);
            let table = self.table;
            let rows = load::<QuarterRow>(
                db,
                &format!(
                    "SELECT {day} AS quarter, COUNT(*) AS n FROM {table} WHERE {cond} \
                     GROUP BY {day}"
                ),
                &binds,
            )?;
            days.extend(rows.iter().map(|r| (r.quarter, r.n.unwrap_or(0))));
        }
        Ok(Some(histogram::buckets(histogram, &days)))
    }
}

/// The first and last instants the histogram may cover: of the days read, the quarters
/// pending and the edges' payments.
fn bounds(folded: &[DayRow], pending: &[QuarterRow], edges: &[Edged]) -> Option<(i64, i64)> {
    let instants = folded
        .iter()
        .flat_map(|r| [r.day * DAY, r.day * DAY + DAY - 1])
        .chain(
            pending
                .iter()
                .flat_map(|r| [r.quarter * QUARTER, r.quarter * QUARTER + QUARTER - 1]),
        )
        .chain(edges.iter().flat_map(|e| e.lo.into_iter().chain(e.hi)));
    instants.fold(None, |acc, at| match acc {
        None => Some((at, at)),
        Some((lo, hi)) => Some((lo.min(at), hi.max(at))),
    })
}

fn offset_in(spans: &[(i64, i32)], at: i64) -> i32 {
    let i = spans.partition_point(|(start, _)| *start <= at);
    spans.get(i.saturating_sub(1)).map_or(0, |s| s.1)
}

/// Why a histogram from roll-ups could not be answered.
#[derive(Debug)]
pub enum Faulted {
    Db(diesel::result::Error),
    /// The rows matched span more than the most a histogram may.
    TooWide,
    /// A roll-up row that does not decode.
    Damaged,
}

impl From<diesel::result::Error> for Faulted {
    fn from(e: diesel::result::Error) -> Self {
        Faulted::Db(e)
    }
}

fn invalid(e: coffer_model::validation::FieldError) -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(e.message.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_is_the_one_of_the_span_an_instant_falls_in() {
        let spans = [(0, 3600), (1000, 7200)];
        assert_eq!(offset_in(&spans, 0), 3600);
        assert_eq!(offset_in(&spans, 999), 3600);
        assert_eq!(offset_in(&spans, 1000), 7200);
        assert_eq!(offset_in(&spans, -5), 3600);
    }
}
