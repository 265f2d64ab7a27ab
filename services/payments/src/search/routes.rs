use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::{ApiError, Json};
use coffer_model::validation::FieldError;
use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::aggs::{self, AggKind};
use super::counts;
use super::histogram;
use super::query::{self, Field, Kind};
use super::sql::{Bind, Builder};
use crate::PaymentsState;
use crate::payments::store;

/// SPEC.md: size defaults to 10 and may not exceed 10,000.
const DEFAULT_SIZE: i64 = 10;
const MAX_SIZE: i64 = 10_000;
/// The deepest offset `from` reaches; past it a client pages with `search_after`, which
/// costs the same on every page.
const MAX_WINDOW: i64 = 100_000;

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/search/payments", web::post().to(search));
}

#[derive(Debug, Deserialize)]
struct SortSpec {
    field: String,
    #[allow(dead_code)]
    field_type: Option<String>,
    direction: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SearchRequest {
    query: Option<Value>,
    aggs: Option<Map<String, Value>>,
    sort: Option<Vec<SortSpec>>,
    size: Option<i64>,
    from: Option<i64>,
    includes: Option<Vec<String>>,
    excludes: Option<Vec<String>>,
    /// `last_sort_values` of the previous page, to page past `from`'s reach.
    search_after: Option<Vec<Value>>,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Text)]
    uuid: String,
}

#[derive(QueryableByName)]
struct Term {
    #[diesel(sql_type = Nullable<Text>)]
    k: Option<String>,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Runs `sql` with `binds` on either backend.
fn load<R>(db: &mut Db<'_>, sql: &str, binds: &[Bind]) -> QueryResult<Vec<R>>
where
    R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
{
    db_run!(db: {
        let mut q = diesel::sql_query(sql).into_boxed();
        for bind in binds {
            q = match bind.clone() {
                Bind::Text(s) => q.bind::<Text, _>(s),
                Bind::Int(i) => q.bind::<BigInt, _>(i),
                Bind::Bool(b) => q.bind::<Bool, _>(b),
            };
        }
        q.load::<R>(db)
    })
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
    /// tenant's payments at the maximum amount would overflow one BIGINT sum within a
    /// million rows.
    #[diesel(sql_type = Nullable<BigInt>)]
    sum_high: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    sum_low: Option<i64>,
}

const SUM_SPLIT: i64 = 1_000_000_000;

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

fn term_key(field: &Field, key: Option<String>) -> Value {
    let Some(key) = key else { return Value::Null };
    match field {
        Field::Column {
            kind: Kind::Int, ..
        } => key.parse::<i64>().map_or(Value::String(key), Value::from),
        Field::Column {
            kind: Kind::Bool, ..
        } => Value::Bool(key == "true" || key == "1" || key == "t"),
        _ => Value::String(key),
    }
}

fn at_path<'a>(value: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(value, |v, part| &v[part])
}

/// Keeps only `includes` (when given), then drops `excludes`, by dotted paths.
fn shape(hit: Value, includes: &Option<Vec<String>>, excludes: &Option<Vec<String>>) -> Value {
    let mut hit = match includes {
        Some(paths) => {
            let mut kept = json!({});
            for path in paths {
                let value = at_path(&hit, path);
                if value.is_null() {
                    continue;
                }
                insert_at(&mut kept, path, value.clone());
            }
            kept
        }
        None => hit,
    };
    for path in excludes.iter().flatten() {
        let (parent, last) = path
            .rsplit_once('.')
            .map_or(("", path.as_str()), |(p, l)| (p, l));
        let target = if parent.is_empty() {
            Some(&mut hit)
        } else {
            hit.pointer_mut(&format!("/{}", parent.replace('.', "/")))
        };
        if let Some(object) = target.and_then(Value::as_object_mut) {
            object.remove(last);
        }
    }
    hit
}

/// Puts `value` at a dotted path, making the objects on the way; a path through something
/// that is not an object is left alone.
fn insert_at(root: &mut Value, path: &str, value: Value) {
    let mut slot = root;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(object) = slot.as_object_mut() else {
            return;
        };
        if parts.peek().is_none() {
            object.insert(part.to_owned(), value);
            return;
        }
        slot = object.entry(part.to_owned()).or_insert_with(|| json!({}));
    }
}

async fn search(
    state: web::Data<PaymentsState>,
    caller: Caller,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: SearchRequest = parse_value(body.0)?;
    let mut errors = Vec::new();
    let filter = match &request.query {
        None => {
            errors.push(FieldError::not_null("query"));
            None
        }
        Some(q) => match query::parse("query", q) {
            Ok(f) => Some(f),
            Err(e) => {
                errors.push(e);
                None
            }
        },
    };
    let size = request.size.unwrap_or(DEFAULT_SIZE);
    if !(0..=MAX_SIZE).contains(&size) {
        errors.push(FieldError::not_valid(
            "size",
            format!("must be between 0 and {MAX_SIZE}"),
        ));
    }
    let from = request.from.unwrap_or(0);
    if !(0..=MAX_WINDOW).contains(&from) {
        errors.push(FieldError::not_valid(
            "from",
            format!("must be between 0 and {MAX_WINDOW}; page further with search_after"),
        ));
    }
    let sort = request.sort.unwrap_or_default();
    let sort = match sort.first() {
        None => ("created", Kind::Int, "created".to_owned(), "DESC"),
        Some(s) => {
            let column = match query::field(&s.field) {
                Some(Field::Column { name, kind }) => Some((name, kind)),
                _ => None,
            };
            let direction = match s.direction.as_deref() {
                None | Some("desc") => "DESC",
                Some("asc") => "ASC",
                Some(_) => {
                    errors.push(FieldError::invalid_choice(
                        "sort[0].direction",
                        "must be asc or desc",
                    ));
                    "DESC"
                }
            };
            match column {
                Some((column, kind)) => (column, kind, s.field.clone(), direction),
                None => {
                    errors.push(FieldError::not_valid(
                        "sort[0].field",
                        format!("cannot sort by {:?}", s.field),
                    ));
                    ("created", Kind::Int, "created".to_owned(), direction)
                }
            }
        }
    };
    let aggs = aggs::parse(request.aggs).unwrap_or_else(|e| {
        errors.extend(e);
        Vec::new()
    });
    let Some(filter) = filter.filter(|_| errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let visible: Option<Vec<String>> = caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect());
    // An empty `includes` asks for every field, as RaiseNow documents it.
    let includes = request.includes.filter(|paths| !paths.is_empty());
    let excludes = request.excludes;
    let (sort_column, sort_kind, sort_path, direction) = sort;
    let search_after = request.search_after;
    // Filtering and grouping only on counted columns: add kept counts up (counts.rs).
    let counted = counts::answerable(&filter)
        && aggs
            .iter()
            .all(|a| matches!(a.kind, AggKind::Term { .. }) && counts::counted(&a.field));
    let (source, tally) = if counted {
        (counts::SOURCE, "CAST(COALESCE(SUM(c), 0) AS BIGINT)")
    } else {
        ("payments", "COUNT(*)")
    };
    let (total, hits, aggregations) = state
        .store
        .run(move |db| {
            let mut b = Builder::new(db.backend());
            let tenant = b.tenant(visible.as_deref());
            let condition = b.filter(&filter).map_err(|e| Failure::Invalid(vec![e]))?;
            let binds = b.binds.clone();
            let where_ = format!("{tenant} AND {condition}");
            let total = load::<Count>(db, &format!("SELECT {tally} AS n FROM {source} WHERE {where_}"), &binds)?
                .first()
                .map_or(0, |c| c.n);
            let (page_where, page_binds) = match &search_after {
                Some(after) if after.len() == 2 => {
                    let condition = b
                        .after(sort_column, sort_kind, &after[0], &after[1], direction == "DESC")
                        .map_err(|e| Failure::Invalid(vec![e]))?;
                    (format!("{where_} AND {condition}"), b.binds.clone())
                }
                Some(_) => {
                    return Err(Failure::Invalid(vec![FieldError::not_valid(
                        "search_after",
                        "must be [sort value, uuid] from last_sort_values",
                    )]));
                }
                None => (where_.clone(), binds.clone()),
            };
            let ids = load::<Id>(
                db,
                &format!(
                    "SELECT uuid FROM payments WHERE {page_where} ORDER BY {sort_column} {direction}, uuid {direction} LIMIT {size} OFFSET {from}"
                ),
                &page_binds,
            )?;
            let mut hits = Vec::new();
            for id in ids {
                if let Some(p) = store::find(db, &id.uuid)? {
                    hits.push(serde_json::to_value(p).map_err(|e| Failure::Db(diesel::result::Error::SerializationError(Box::new(e))))?);
                }
            }
            let mut out = Map::new();
            for agg in &aggs {
                let expr = b.expr(&agg.field);
                let size = match agg.kind {
                    AggKind::Term { size } => size,
                    AggKind::DateHistogram(histogram) => {
                        let span = load::<Span>(db, &format!("SELECT MIN(created) AS lo, MAX(created) AS hi FROM payments WHERE {where_}"), &binds)?;
                        let buckets = match span.first() {
                            Some(Span { lo: Some(lo), hi: Some(hi) }) if hi - lo > MAX_HISTOGRAM_SPAN => {
                                return Err(Failure::Invalid(vec![FieldError::not_valid(
                                    format!("aggs.{}", agg.name),
                                    "the payments matched span more than a century; narrow the query",
                                )]));
                            }
                            Some(Span { lo: Some(lo), hi: Some(hi) }) => {
                                let day = histogram::local_day_sql(histogram.zone, *lo, *hi);
                                let rows = load::<Day>(db, &format!("SELECT {day} AS d, COUNT(*) AS n FROM payments WHERE {where_} GROUP BY {day}"), &binds)?;
                                let days: Vec<(i64, i64)> = rows.iter().map(|r| (r.d, r.n)).collect();
                                histogram::buckets(histogram, &days)
                            }
                            _ => Vec::new(),
                        };
                        out.insert(agg.name.clone(), Value::Array(buckets));
                        continue;
                    }
                    AggKind::Stats => 0,
                };
                if agg.kind == AggKind::Stats {
                    // Sums are cast back to BIGINT: PostgreSQL widens them to NUMERIC.
                    let row = load::<Stats>(
                        db,
                        &format!(
                            "SELECT COUNT({expr}) AS count, MIN({expr}) AS min, MAX({expr}) AS max, \
                             CAST(SUM({expr} / {SUM_SPLIT}) AS BIGINT) AS sum_high, \
                             CAST(SUM({expr} % {SUM_SPLIT}) AS BIGINT) AS sum_low FROM payments WHERE {where_}"
                        ),
                        &binds,
                    )?;
                    let Some(st) = row.first() else { continue };
                    let sum = st.sum_high.zip(st.sum_low).map(|(high, low)| {
                        i128::from(high) * i128::from(SUM_SPLIT) + i128::from(low)
                    });
                    // The mean in whole minor units, rounded half up: money is never a float.
                    let count = i128::from(st.count);
                    let avg = sum.filter(|_| count > 0).map(|sum| (2 * sum + count) / (2 * count));
                    // Amounts are strings of digits on the wire, as Money's value is; a sum
                    // may pass what a JSON number holds exactly.
                    let digits = |v: Option<i128>| v.map(|v| v.to_string());
                    out.insert(
                        agg.name.clone(),
                        json!({
                            "count": st.count,
                            "min": digits(st.min.map(i128::from)),
                            "max": digits(st.max.map(i128::from)),
                            "sum": digits(sum),
                            "avg": digits(avg),
                        }),
                    );
                    continue;
                }
                let rows = load::<Term>(
                    db,
                    &format!(
                        "SELECT CAST({expr} AS TEXT) AS k, {tally} AS n FROM {source} WHERE {where_} GROUP BY {expr} HAVING {tally} > 0 ORDER BY n DESC, k ASC LIMIT {}",
                        size
                    ),
                    &binds,
                )?;
                let buckets: Vec<Value> =
                    rows.into_iter().map(|r| json!({ "key": term_key(&agg.field, r.k), "doc_count": r.n })).collect();
                out.insert(agg.name.clone(), Value::Array(buckets));
            }
            Ok::<_, Failure>((total, hits, out))
        })
        .await
        .map_err(|f| match f {
            Failure::Invalid(e) => ApiError::validation(e),
            Failure::Db(e) => ApiError::from(coffer_store::StoreError::from(e)),
            Failure::Store(e) => ApiError::from(e),
        })?;
    let last_sort_values = hits
        .last()
        .map(|h| json!([at_path(h, &sort_path), h["uuid"]]))
        .unwrap_or_else(|| json!([]));
    let hits: Vec<Value> = hits
        .into_iter()
        .map(|h| shape(h, &includes, &excludes))
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "summary": { "hits": total, "last_sort_values": last_sort_values },
        "hits": hits,
        "aggregations": aggregations,
    })))
}

enum Failure {
    Invalid(Vec<FieldError>),
    Db(diesel::result::Error),
    Store(coffer_store::StoreError),
}

impl From<diesel::result::Error> for Failure {
    fn from(e: diesel::result::Error) -> Self {
        Failure::Db(e)
    }
}

impl From<coffer_store::StoreError> for Failure {
    fn from(e: coffer_store::StoreError) -> Self {
        Failure::Store(e)
    }
}
