//! Payments rolled up per group of counted columns and UTC day (migration 000023,
//! docs/decisions/search-rollups.md): what searches read ([`ROLLUPS`]), and [`fold`],
//! which moves the changes the trigger appended into their days. A day's quarter hours
//! are kept as one encoded value (coffer_search's rollup/quarters.rs), which no SQL of
//! both databases can add to, so the fold reads the days a batch touches, adds here, and
//! writes them back, alone: under the write lock on SQLite, under an advisory lock on
//! PostgreSQL (another instance folding at the same time skips its turn).

use std::collections::BTreeMap;

use coffer_search::rollup::{Ordered, Rollups, quarters};
use coffer_store::{Backend, Db, db_run};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Text};

use super::counts;
use super::parameters::PARAMETERS;
use crate::schema::payment_rollups::dsl as r;

/// What payment searches read roll-ups from.
pub const ROLLUPS: Rollups = Rollups {
    days: "payment_rollups",
    changes: "payment_rollup_changes",
    counted: counts::counted,
    summed: "amount_value",
    parameters: Some(PARAMETERS),
    // Migration 000023's index, (account_uuid, amount_value, uuid).
    ordered: &[Ordered {
        column: "amount_value",
        within: "account_uuid",
        index: "payments_account_amount_idx",
    }],
};

/// Changes folded per transaction: a bulk load's millions are folded a batch at a time,
/// so no transaction holds the lock long.
const BATCH: i64 = 20_000;

/// The fold's advisory lock on PostgreSQL (first key "rollups" in ASCII, second 1).
const LOCK: (i32, i32) = (0x726f_6c6c, 1);

#[derive(QueryableByName)]
struct Change {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    organisation_uuid: String,
    #[diesel(sql_type = Text)]
    account_uuid: String,
    #[diesel(sql_type = Bool)]
    test_mode: bool,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Text)]
    payment_method: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    quarter: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = BigInt)]
    amount_high: i64,
    #[diesel(sql_type = BigInt)]
    amount_low: i64,
}

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    locked: bool,
}

/// A day's row as stored.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::payment_rollups)]
// Every value written (none is an `Option`), so that a batch is one statement on SQLite.
#[diesel(treat_none_as_default_value = false)]
struct Day {
    organisation_uuid: String,
    account_uuid: String,
    day: i64,
    test_mode: bool,
    status: String,
    payment_method: String,
    currency: String,
    n: i64,
    amount_high: i64,
    amount_low: i64,
    quarters: Vec<u8>,
}

/// A day's row by its key, as the fold adds to it.
type Key = (String, String, i64, bool, String, String, String);

/// What a batch's changes do to one day's row: its count, its sum, and each quarter's.
#[derive(Default)]
struct Moves {
    n: i64,
    /// The amounts' sum in two parts, as the tables keep it (migration 000023).
    amount: (i64, i64),
    /// Each quarter's changes summed before they are added: a batch is read in no
    /// particular order (PostgreSQL's `DELETE ... RETURNING` answers in the table's
    /// physical order, not by id), so a payment's -1 may come before its own +1, and only
    /// the sum of the batch is sure to leave a count at or above zero.
    quarters: BTreeMap<usize, i64>,
}

struct Sums {
    n: i64,
    amount: (i64, i64),
    quarters: quarters::Quarters,
}

const CHANGE_COLUMNS: &str = "id, organisation_uuid, account_uuid, test_mode, status, \
    payment_method, currency, quarter, n, amount_high, amount_low";

/// Folds one batch of changes; answers how many were folded (0 when another instance
/// holds the fold on PostgreSQL).
pub fn fold(db: &mut Db<'_>) -> QueryResult<usize> {
    db.write_tx(|tx| {
        let changes: Vec<Change> = match tx.backend() {
            Backend::Postgres => {
                let locked = db_run!(tx: {
                    diesel::sql_query("SELECT pg_try_advisory_xact_lock($1, $2) AS locked")
                        .bind::<diesel::sql_types::Integer, _>(LOCK.0)
                        .bind::<diesel::sql_types::Integer, _>(LOCK.1)
                        .load::<Locked>(tx)
                })?;
                if !locked.first().is_some_and(|l| l.locked) {
                    return Ok(0);
                }
                db_run!(tx: {
                    diesel::sql_query(format!(
                        "DELETE FROM payment_rollup_changes WHERE id IN \
                         (SELECT id FROM payment_rollup_changes ORDER BY id LIMIT {BATCH}) \
                         RETURNING {CHANGE_COLUMNS}"
                    ))
                    .load::<Change>(tx)
                })?
            }
            // The write lock keeps every other writer out until the batch is folded.
            Backend::Sqlite => {
                let batch: Vec<Change> = db_run!(tx: {
                    diesel::sql_query(format!(
                        "SELECT {CHANGE_COLUMNS} FROM payment_rollup_changes ORDER BY id LIMIT {BATCH}"
                    ))
                    .load::<Change>(tx)
                })?;
                if let Some(last) = batch.last().map(|c| c.id) {
                    db_run!(tx: {
                        diesel::sql_query("DELETE FROM payment_rollup_changes WHERE id <= ?")
                            .bind::<BigInt, _>(last)
                            .execute(tx)
                    })?;
                }
                batch
            }
        };
        let folded = changes.len();
        apply(tx, changes)?;
        Ok(folded)
    })
}

/// Adds `changes` to their days' rows, making the rows that are new and removing those
/// that come to nothing.
fn apply(db: &mut Db<'_>, changes: Vec<Change>) -> QueryResult<()> {
    let mut touched: BTreeMap<Key, Moves> = BTreeMap::new();
    for c in changes {
        let day = c.quarter.div_euclid(quarters::PER_DAY as i64);
        let q = usize::try_from(c.quarter.rem_euclid(quarters::PER_DAY as i64)).unwrap_or(0);
        let key = (
            c.organisation_uuid,
            c.account_uuid,
            day,
            c.test_mode,
            c.status,
            c.payment_method,
            c.currency,
        );
        let entry = touched.entry(key).or_default();
        entry.n += c.n;
        entry.amount.0 += c.amount_high;
        entry.amount.1 += c.amount_low;
        *entry.quarters.entry(q).or_default() += c.n;
    }
    // The days each account's changes fall on, so that only their rows are read (a
    // refund of an old payment touches its day, not the years since).
    let mut accounts: BTreeMap<(&str, &str), Vec<i64>> = BTreeMap::new();
    for key in touched.keys() {
        let days = accounts
            .entry((key.0.as_str(), key.1.as_str()))
            .or_default();
        if days.last() != Some(&key.2) {
            days.push(key.2);
        }
    }
    let mut kept: BTreeMap<Key, Sums> = BTreeMap::new();
    for ((org, account), mut days) in accounts {
        days.sort_unstable();
        days.dedup();
        for some in days.chunks(500) {
            read_days(db, (org, account), some, &mut kept)?;
        }
    }
    let (mut written, mut emptied) = (Vec::new(), Vec::new());
    for (
        key,
        Moves {
            n,
            amount,
            quarters: moves,
        },
    ) in touched
    {
        // A day with no row yet starts from nothing.
        let sums = kept.entry(key.clone()).or_insert(Sums {
            n: 0,
            amount: (0, 0),
            quarters: [0; quarters::PER_DAY],
        });
        sums.n += n;
        // Each part is a payment's amount over or modulo a billion, summed: far from
        // overflowing whatever the amounts.
        sums.amount = (sums.amount.0 + amount.0, sums.amount.1 + amount.1);
        for (q, change) in moves {
            if change != 0 && quarters::add(&mut sums.quarters, q, change).is_none() {
                // Only changes lost or folded twice could take a count below nothing.
                tracing::error!(
                    day = key.2,
                    "a payment roll-up would fall below zero; kept at zero"
                );
            }
        }
        if sums.n <= 0 {
            emptied.push(key);
        } else {
            written.push(Day {
                organisation_uuid: key.0,
                account_uuid: key.1,
                day: key.2,
                test_mode: key.3,
                status: key.4,
                payment_method: key.5,
                currency: key.6,
                n: sums.n,
                amount_high: sums.amount.0,
                amount_low: sums.amount.1,
                quarters: quarters::encode(&sums.quarters),
            });
        }
    }
    for key in emptied {
        db_run!(db: {
            diesel::delete(r::payment_rollups.find((&key.0, &key.1, key.2, key.3, &key.4, &key.5, &key.6)))
                .execute(db)
        })?;
    }
    // Ten values a row: well within either database's bound on one statement's values.
    for chunk in written.chunks(500) {
        db_run!(db: {
            diesel::insert_into(r::payment_rollups)
                .values(chunk)
                .on_conflict((r::organisation_uuid, r::account_uuid, r::day, r::test_mode, r::status, r::payment_method, r::currency))
                .do_update()
                .set((
                    r::n.eq(diesel::upsert::excluded(r::n)),
                    r::amount_high.eq(diesel::upsert::excluded(r::amount_high)),
                r::amount_low.eq(diesel::upsert::excluded(r::amount_low)),
                    r::quarters.eq(diesel::upsert::excluded(r::quarters)),
                ))
                .execute(db)
        })?;
    }
    Ok(())
}

/// Adds the stored rows of `days` of an account to `kept`.
fn read_days(
    db: &mut Db<'_>,
    (org, account): (&str, &str),
    days: &[i64],
    kept: &mut BTreeMap<Key, Sums>,
) -> QueryResult<()> {
    let rows: Vec<Day> = db_run!(db: {
        r::payment_rollups
            .filter(r::organisation_uuid.eq(org))
            .filter(r::account_uuid.eq(account))
            .filter(r::day.eq_any(days))
            .select(Day::as_select())
            .load(db)
    })?;
    for row in rows {
        let counts = quarters::decode(&row.quarters).ok_or_else(|| {
            diesel::result::Error::DeserializationError(
                format!("payment_rollups of day {} does not decode", row.day).into(),
            )
        })?;
        kept.insert(
            (
                row.organisation_uuid,
                row.account_uuid,
                row.day,
                row.test_mode,
                row.status,
                row.payment_method,
                row.currency,
            ),
            Sums {
                n: row.n,
                amount: (row.amount_high, row.amount_low),
                quarters: counts,
            },
        );
    }
    Ok(())
}

/// Folds until the changes are drained, a batch per transaction.
pub fn fold_all(db: &mut Db<'_>) -> QueryResult<()> {
    while fold(db)? == usize::try_from(BATCH).unwrap_or(usize::MAX) {}
    Ok(())
}
