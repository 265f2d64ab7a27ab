//! The test provider's own book of what it was asked, by idempotency key. It lives in
//! payments' database for convenience, but is written outside the transactions of the
//! payment it answers, as a real provider's records are.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::test_psp_ledger::dsl as l;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::test_psp_ledger)]
pub struct Entry {
    pub idempotency_key: String,
    pub kind: String,
    pub outcome: String,
    pub requests: i64,
    pub created: i64,
}

pub fn find(db: &mut Db<'_>, key: &str) -> QueryResult<Option<Entry>> {
    db_run!(db: { l::test_psp_ledger.find(key).select(Entry::as_select()).first(db).optional() })
}

/// Counts one more request under a key the provider knows.
pub fn asked_again(db: &mut Db<'_>, key: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(l::test_psp_ledger.find(key))
            .set(l::requests.eq(l::requests + 1))
            .execute(db)
            .map(drop)
    })
}

/// Records the first request under a key; false when another got there first. `ON
/// CONFLICT DO NOTHING` rather than a caught unique violation, which would abort the
/// shared transaction it is written in (`Store::write_unflushed`).
pub fn record(db: &mut Db<'_>, entry: &Entry) -> QueryResult<bool> {
    let inserted = db_run!(db: {
        diesel::insert_into(l::test_psp_ledger)
            .values((
                l::idempotency_key.eq(&entry.idempotency_key),
                l::kind.eq(&entry.kind),
                l::outcome.eq(&entry.outcome),
                l::requests.eq(entry.requests),
                l::created.eq(entry.created),
            ))
            .on_conflict_do_nothing()
            .execute(db)
    })?;
    Ok(inserted == 1)
}

/// [`record`] for several keys in one statement; the keys recorded, each once (another
/// request, or an earlier entry of the same batch, got there first for the rest).
pub fn record_all(db: &mut Db<'_>, entries: &[Entry]) -> QueryResult<Vec<String>> {
    let Db::Pg(pg) = db else {
        let mut recorded = Vec::new();
        for entry in entries {
            if record(db, entry)? {
                recorded.push(entry.idempotency_key.clone());
            }
        }
        return Ok(recorded);
    };
    diesel::insert_into(l::test_psp_ledger)
        .values(entries)
        .on_conflict_do_nothing()
        .returning(l::idempotency_key)
        .get_results(&mut **pg)
}

pub fn of_kind(db: &mut Db<'_>, kind: &str) -> QueryResult<Vec<Entry>> {
    db_run!(db: {
        l::test_psp_ledger
            .filter(l::kind.eq(kind))
            .order(l::created.asc())
            .select(Entry::as_select())
            .load(db)
    })
}
