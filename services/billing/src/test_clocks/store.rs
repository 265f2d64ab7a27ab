use coffer_store::{Db, db_run};
use diesel::prelude::*;
use serde::Serialize;

use crate::schema::test_clocks::dsl as c;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Serialize)]
#[diesel(table_name = crate::schema::test_clocks)]
pub struct TestClock {
    pub uuid: String,
    #[serde(skip)]
    pub owner: String,
    pub frozen_time: i64,
    #[serde(skip)]
    pub target_time: Option<i64>,
    /// ready, or advancing while an advance runs.
    pub status: String,
    pub created: i64,
}

pub fn insert(db: &mut Db<'_>, x: &TestClock) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(c::test_clocks)
            .values((
                c::uuid.eq(&x.uuid),
                c::owner.eq(&x.owner),
                c::frozen_time.eq(x.frozen_time),
                c::target_time.eq(x.target_time),
                c::status.eq(&x.status),
                c::created.eq(x.created),
                c::updated.eq(x.created),
            ))
            .execute(db)
            .map(drop)
    })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<TestClock>> {
    db_run!(db: { c::test_clocks.find(uuid).select(TestClock::as_select()).first(db).optional() })
}

/// Starts an advance to `target`; false when one is running already.
pub fn begin(db: &mut Db<'_>, uuid: &str, target: i64, now: i64) -> QueryResult<bool> {
    let n = db_run!(db: {
        diesel::update(c::test_clocks.find(uuid).filter(c::status.eq("ready")))
            .set((c::status.eq("advancing"), c::target_time.eq(target), c::updated.eq(now)))
            .execute(db)
    })?;
    Ok(n == 1)
}

/// Moves the clock's time (never backwards).
pub fn set_time(db: &mut Db<'_>, uuid: &str, time: i64, now: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(c::test_clocks.find(uuid).filter(c::frozen_time.le(time)))
            .set((c::frozen_time.eq(time), c::updated.eq(now)))
            .execute(db)
            .map(drop)
    })
}

pub fn finish(db: &mut Db<'_>, uuid: &str, now: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(c::test_clocks.find(uuid))
            .set((c::status.eq("ready"), c::target_time.eq(None::<i64>), c::updated.eq(now)))
            .execute(db)
            .map(drop)
    })
}

pub fn delete(db: &mut Db<'_>, uuid: &str) -> QueryResult<()> {
    db_run!(db: { diesel::delete(c::test_clocks.find(uuid)).execute(db).map(drop) })
}

/// Clocks left advancing (a process stopped mid-way); resumed at start.
pub fn advancing(db: &mut Db<'_>) -> QueryResult<Vec<TestClock>> {
    db_run!(db: {
        c::test_clocks.filter(c::status.eq("advancing")).select(TestClock::as_select()).load(db)
    })
}

/// The time of a subscription: its test clock's, or the real one.
pub fn time_of(db: &mut Db<'_>, clock: Option<&str>, real: i64) -> QueryResult<i64> {
    match clock {
        None => Ok(real),
        Some(uuid) => Ok(find(db, uuid)?.map_or(real, |c| c.frozen_time)),
    }
}
