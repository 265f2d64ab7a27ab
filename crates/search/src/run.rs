//! Running a checked search on either database: the total, one page of hits in order,
//! and each aggregation, all limited to the caller's organisations.

use std::time::Instant;

use coffer_model::validation::FieldError;
use coffer_store::Db;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use serde_json::{Map, Value, json};

use crate::aggs::{AggKind, Aggregation};
use crate::answer::{SUM_SPLIT, bucket, stats, typed};
use crate::fetch::load;
use crate::filter::Field;
use crate::histogram;
use crate::plan::Plan;
use crate::query::Schema;
use crate::rollup::{self, Faulted, Reading, Rollups};
use crate::shape::shape;
use crate::sql::{Bind, Builder, order};

/// Why a search stopped: a value the database would not compare, or the database.
#[derive(Debug)]
pub enum SearchError {
    Invalid(Vec<FieldError>),
    Db(diesel::result::Error),
    /// Past its budget (coffer_store's searches.rs).
    TimedOut,
    /// No connection, or the tenant's bound of searches reached.
    Store(coffer_store::StoreError),
}

impl From<coffer_store::StoreError> for SearchError {
    fn from(e: coffer_store::StoreError) -> Self {
        SearchError::Store(e)
    }
}

impl From<SearchError> for coffer_error::ApiError {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::Invalid(items) => coffer_error::ApiError::validation(items),
            SearchError::Db(e) => coffer_store::StoreError::from(e).into(),
            SearchError::TimedOut => coffer_store::StoreError::SearchTimedOut.into(),
            SearchError::Store(e) => e.into(),
        }
    }
}

impl From<diesel::result::Error> for SearchError {
    fn from(e: diesel::result::Error) -> Self {
        SearchError::Db(e)
    }
}

/// Where counts come from: the schema's table counted row by row, or something that
/// keeps counts (payments' kept counts), read with the same column names.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub from: &'a str,
    pub tally: &'a str,
    /// Roll-ups the service keeps (rollup/), for what `from` counting rows would answer.
    pub rollups: Option<&'a Rollups>,
}

impl<'a> Source<'a> {
    pub fn rows(schema: &'a Schema) -> Self {
        Source {
            from: schema.table,
            tally: "COUNT(*)",
            rollups: None,
        }
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Hit {
    #[diesel(sql_type = Text)]
    uuid: String,
    #[diesel(sql_type = Nullable<Text>)]
    sorted_by: Option<String>,
}

#[derive(QueryableByName)]
struct Term {
    #[diesel(sql_type = Nullable<Text>)]
    k: Option<String>,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The counts of a range aggregation, one per range in order, joined by commas: one row
/// of one column on either backend, however many ranges.
#[derive(QueryableByName)]
struct Tallies {
    #[diesel(sql_type = Text)]
    counts: String,
}

#[derive(QueryableByName)]
struct Stats {
    #[diesel(sql_type = BigInt)]
    count: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    min: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    max: Option<i64>,
    /// The sum in two parts, whole billions and the rest, each far from overflowing: a
    /// tenant's rows at the largest amount would overflow one BIGINT sum within a million.
    #[diesel(sql_type = Nullable<BigInt>)]
    sum_high: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    sum_low: Option<i64>,
}

#[derive(QueryableByName)]
struct Span {
    #[diesel(sql_type = Nullable<BigInt>)]
    lo: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    hi: Option<i64>,
}

#[derive(QueryableByName)]
struct Day {
    #[diesel(sql_type = BigInt)]
    d: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A century of daily buckets is the most a histogram is asked to span.
const MAX_HISTOGRAM_SPAN: i64 = 100 * 366 * 86_400;

/// How a service renders one hit as its Get operation answers it (None when it is gone).
pub type Render = fn(&mut Db<'_>, &str) -> QueryResult<Option<Value>>;

/// Stops a search whose budget has run out; checked between its steps.
fn within(deadline: Instant) -> Result<(), SearchError> {
    if Instant::now() > deadline {
        return Err(SearchError::TimedOut);
    }
    Ok(())
}

/// Runs `plan` over the rows of `visible` organisations (all for a platform caller) and
/// answers `{summary, hits, aggregations}`, each hit as `render` gives it, or stops once
/// `deadline` has passed.
pub fn run(
    db: &mut Db<'_>,
    schema: &Schema,
    plan: &Plan,
    visible: Option<&[uuid::Uuid]>,
    (source, render): (Source<'_>, Render),
    deadline: Instant,
) -> Result<Value, SearchError> {
    let table = schema.table;
    let mut b = Builder::new(db.backend());
    let visible: Option<Vec<String>> =
        visible.map(|ids| ids.iter().map(ToString::to_string).collect());
    let tenant = b.tenant(visible.as_deref());
    let condition = b
        .filter(&plan.filter)
        .map_err(|e| SearchError::Invalid(vec![e]))?;
    let binds = b.binds.clone();
    let where_ = format!("{tenant} AND {condition}");
    let (from, tally) = (source.from, source.tally);
    // Counting rows, roll-ups answer what they can of the filter (rollup/).
    let split = source.rollups.filter(|_| from == table).and_then(|r| {
        let parameters = r.parameters.map(|p| p.column);
        rollup::split(&plan.filter, &r.counted, parameters).map(|split| (r, split))
    });
    let reading = split.as_ref().map(|(rollups, split)| Reading {
        rollups,
        table,
        visible: visible.as_deref(),
        filter: &plan.filter,
        split,
        days: rollup::days(split.created),
    });
    let rolled_total = match &reading {
        Some(reading) => match &reading.split.parameter {
            None => Some(reading.total(db)?),
            Some((key, value)) => reading.parameter_total(db, (key, value))?,
        },
        None => None,
    };
    let total = match rolled_total {
        Some(total) => total,
        None => load::<Count>(
            db,
            &format!("SELECT {tally} AS n FROM {from} WHERE {where_}"),
            &binds,
        )?
        .first()
        .map_or(0, |c| c.n),
    };

    let sort = &plan.sort;
    let (page_where, page_binds) = match plan.search_after.as_deref() {
        Some([value, uuid]) => {
            let after = b
                .after(
                    (sort.column, sort.kind, sort.never_null),
                    value,
                    uuid,
                    sort.descending,
                )
                .map_err(|e| SearchError::Invalid(vec![e]))?;
            (format!("{where_} AND {after}"), b.binds.clone())
        }
        _ => (where_.clone(), binds.clone()),
    };
    let along = match &reading {
        Some(reading) if rolled_total.is_some() && plan.size > 0 => reading
            .page_index(db, sort.column, plan.from + plan.size, total)?
            .map_or_else(String::new, |index| format!(" INDEXED BY {index}")),
        _ => String::new(),
    };
    let page = load::<Hit>(
        db,
        &format!(
            "SELECT uuid, CAST({column} AS TEXT) AS sorted_by FROM {table}{along} \
             WHERE {page_where} ORDER BY {order} LIMIT {size} OFFSET {offset}",
            column = sort.column,
            order = order(sort.column, sort.descending, sort.never_null),
            size = plan.size,
            offset = plan.from,
        ),
        &page_binds,
    )?;
    let last_sort_values = page.last().map_or_else(
        || json!([]),
        |h| json!([typed(sort.kind, h.sorted_by.clone()), h.uuid]),
    );
    let mut hits = Vec::with_capacity(page.len());
    within(deadline)?;
    for hit in &page {
        within(deadline)?;
        if let Some(rendered) = render(db, &hit.uuid)? {
            hits.push(shape(
                rendered,
                plan.includes.as_deref(),
                plan.excludes.as_deref(),
            ));
        }
    }

    let mut aggregations = Map::new();
    for agg in &plan.aggs {
        within(deadline)?;
        let rolled = match &reading {
            Some(reading) => rolled_up(db, reading, (&where_, &binds, total), agg)?,
            None => None,
        };
        let answer = match rolled {
            Some(answer) => answer,
            None => aggregate(db, table, source, &b, &where_, &binds, agg)?,
        };
        aggregations.insert(agg.name.clone(), answer);
    }
    Ok(json!(Found {
        summary: SearchSummary {
            hits: total,
            last_sort_values,
        },
        hits,
        aggregations,
    }))
}

/// What a search answers.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Found {
    pub summary: SearchSummary,
    /// The page of objects, each as its own GET shows it, cut to `includes` and
    /// `excludes` when the request names them.
    #[schema(value_type = Vec<Object>)]
    pub hits: Vec<Value>,
    /// An answer for each aggregation asked for, by its name.
    #[schema(value_type = Object)]
    pub aggregations: Map<String, Value>,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SearchSummary {
    /// How many objects match, across every page.
    pub hits: i64,
    /// The last hit's sort value and uuid, for `search_after`; empty when the page is.
    #[schema(value_type = Vec<serde_json::Value>, max_items = 2)]
    pub last_sort_values: Value,
}

/// `agg` answered from roll-ups, or `None` when they cannot answer it.
fn rolled_up(
    db: &mut Db<'_>,
    reading: &Reading<'_>,
    (where_, binds, total): (&str, &[Bind], i64),
    agg: &Aggregation,
) -> Result<Option<Value>, SearchError> {
    let summed =
        |f: &Field| matches!(f, Field::Column { name, .. } if *name == reading.rollups.summed);
    let parameters = reading.rollups.parameters.map(|p| p.column);
    if let (AggKind::Term { size }, Field::Json { column, key }) = (agg.kind, &agg.field) {
        if Some(*column) != parameters {
            return Ok(None);
        }
        return Ok(reading.parameter_term(db, (&agg.field, key), (size, total))?);
    }
    // Days are kept per group, not per parameter value; without a parameter, `total` is
    // the roll-ups' own (`Reading::total`), which stats reuse as their count.
    if reading.split.parameter.is_some() {
        return Ok(None);
    }
    Ok(Some(match agg.kind {
        AggKind::Term { size } if (reading.rollups.counted)(&agg.field) => {
            reading.term(db, &agg.field, size)?
        }
        AggKind::Stats if summed(&agg.field) => reading.stats(db, (where_, binds), total)?,
        AggKind::DateHistogram(histogram) => {
            match reading.histogram(db, histogram, MAX_HISTOGRAM_SPAN) {
                Ok(Some(buckets)) => Value::Array(buckets),
                Ok(None) => return Ok(None),
                Err(Faulted::Db(e)) => return Err(e.into()),
                Err(Faulted::TooWide) => return Err(too_wide(agg)),
                Err(Faulted::Damaged) => {
                    tracing::warn!("a roll-up row does not decode; counting rows instead");
                    return Ok(None);
                }
            }
        }
        _ => return Ok(None),
    }))
}

fn too_wide(agg: &Aggregation) -> SearchError {
    SearchError::Invalid(vec![FieldError::not_valid(
        format!("aggs.{}", agg.name),
        "the rows matched span more than a century; narrow the query",
    )])
}

fn aggregate(
    db: &mut Db<'_>,
    table: &str,
    source: Source<'_>,
    b: &Builder,
    where_: &str,
    binds: &[Bind],
    agg: &Aggregation,
) -> Result<Value, SearchError> {
    let expr = b.expr(&agg.field);
    match agg.kind {
        AggKind::Term { size } => {
            let (from, tally) = (source.from, source.tally);
            // Ties by key bytewise on either database, whatever PostgreSQL's collation, as
            // roll-ups order them.
            let key = match db.backend() {
                coffer_store::Backend::Postgres => format!(r#"CAST({expr} AS TEXT) COLLATE "C""#),
                coffer_store::Backend::Sqlite => "k".to_owned(),
            };
            let rows = load::<Term>(
                db,
                &format!(
                    "SELECT CAST({expr} AS TEXT) AS k, {tally} AS n FROM {from} WHERE {where_} \
                     GROUP BY {expr} HAVING {tally} > 0 ORDER BY n DESC, {key} ASC LIMIT {size}"
                ),
                binds,
            )?;
            Ok(Value::Array(
                rows.into_iter()
                    .map(|r| bucket(&agg.field, r.k, r.n))
                    .collect(),
            ))
        }
        AggKind::Stats => {
            // Sums are cast back to BIGINT: PostgreSQL widens them to NUMERIC.
            let row = load::<Stats>(
                db,
                &format!(
                    "SELECT COUNT({expr}) AS count, MIN({expr}) AS min, MAX({expr}) AS max, \
                     CAST(SUM({expr} / {SUM_SPLIT}) AS BIGINT) AS sum_high, \
                     CAST(SUM({expr} % {SUM_SPLIT}) AS BIGINT) AS sum_low \
                     FROM {table} WHERE {where_}"
                ),
                binds,
            )?;
            let Some(st) = row.first() else {
                return Ok(Value::Null);
            };
            let sum = st
                .sum_high
                .zip(st.sum_low)
                .map(|(high, low)| i128::from(high) * i128::from(SUM_SPLIT) + i128::from(low));
            Ok(stats(st.count, st.min, st.max, sum))
        }
        AggKind::Range => {
            // Bounds are whole numbers read by ranges.rs, written into the text as such.
            let counts = agg
                .ranges
                .iter()
                .map(|bucket| {
                    let mut conditions = Vec::new();
                    if let Some(from) = bucket.from {
                        conditions.push(format!("{expr} >= {from}"));
                    }
                    if let Some(to) = bucket.to {
                        conditions.push(format!("{expr} < {to}"));
                    }
                    if conditions.is_empty() {
                        conditions.push(format!("{expr} IS NOT NULL"));
                    }
                    format!(
                        "CAST(COUNT(CASE WHEN {} THEN 1 END) AS TEXT)",
                        conditions.join(" AND ")
                    )
                })
                .collect::<Vec<_>>()
                .join(" || ',' || ");
            let row = load::<Tallies>(
                db,
                &format!("SELECT {counts} AS counts FROM {table} WHERE {where_}"),
                binds,
            )?;
            let counts: Vec<i64> = row
                .first()
                .map(|r| {
                    r.counts
                        .split(',')
                        .map(|n| n.parse().unwrap_or(0))
                        .collect()
                })
                .unwrap_or_default();
            Ok(Value::Array(
                agg.ranges
                    .iter()
                    .enumerate()
                    .map(|(i, bucket)| bucket.answer(counts.get(i).copied().unwrap_or(0)))
                    .collect(),
            ))
        }
        AggKind::DateHistogram(histogram) => {
            let span = load::<Span>(
                db,
                &format!(
                    "SELECT MIN(created) AS lo, MAX(created) AS hi FROM {table} WHERE {where_}"
                ),
                binds,
            )?;
            let buckets = match span.first() {
                Some(Span {
                    lo: Some(lo),
                    hi: Some(hi),
                }) if hi - lo > MAX_HISTOGRAM_SPAN => {
                    return Err(too_wide(agg));
                }
                Some(Span {
                    lo: Some(lo),
                    hi: Some(hi),
                }) => {
                    let day = histogram::local_day_sql(histogram.zone, *lo, *hi);
                    let rows = load::<Day>(
                        db,
                        &format!(
                            "SELECT {day} AS d, COUNT(*) AS n FROM {table} WHERE {where_} GROUP BY {day}"
                        ),
                        binds,
                    )?;
                    let days: Vec<(i64, i64)> = rows.iter().map(|r| (r.d, r.n)).collect();
                    histogram::buckets(histogram, &days)
                }
                _ => Vec::new(),
            };
            Ok(Value::Array(buckets))
        }
    }
}
