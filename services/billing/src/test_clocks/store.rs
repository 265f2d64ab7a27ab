use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::domain::{ClockStatus, TestClock};
use crate::schema::test_clocks::dsl as c;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = crate::schema::test_clocks)]
struct Row {
    uuid: String,
    owner: String,
    frozen_time: i64,
    target_time: Option<i64>,
    status: ClockStatus,
    created: i64,
}

impl Row {
    fn into_clock(self) -> QueryResult<TestClock> {
        Ok(TestClock {
            uuid: self.uuid,
            owner: self.owner,
            frozen_time: self.frozen_time,
            target_time: self.target_time,
            status: self.status,
            created: self.created,
        })
    }
}

const READY: ClockStatus = ClockStatus::Ready;
const ADVANCING: ClockStatus = ClockStatus::Advancing;

pub fn insert(db: &mut Db<'_>, x: &TestClock) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(c::test_clocks)
            .values((
                c::uuid.eq(&x.uuid),
                c::owner.eq(&x.owner),
                c::frozen_time.eq(x.frozen_time),
                c::target_time.eq(x.target_time),
                c::status.eq(x.status),
                c::created.eq(x.created),
                c::updated.eq(x.created),
            ))
            .execute(db)
            .map(drop)
    })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<TestClock>> {
    let row: Option<Row> =
        db_run!(db: { c::test_clocks.find(uuid).select(Row::as_select()).first(db).optional() })?;
    row.map(Row::into_clock).transpose()
}

/// Starts an advance to `target`; false when one is running already.
pub fn begin(db: &mut Db<'_>, uuid: &str, target: i64, now: i64) -> QueryResult<bool> {
    let n = db_run!(db: {
        diesel::update(c::test_clocks.find(uuid).filter(c::status.eq(READY)))
            .set((c::status.eq(ADVANCING), c::target_time.eq(target), c::updated.eq(now)))
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
            .set((c::status.eq(READY), c::target_time.eq(None::<i64>), c::updated.eq(now)))
            .execute(db)
            .map(drop)
    })
}

pub fn delete(db: &mut Db<'_>, uuid: &str) -> QueryResult<()> {
    db_run!(db: { diesel::delete(c::test_clocks.find(uuid)).execute(db).map(drop) })
}

/// Clocks left advancing (a process stopped mid-way); resumed at start.
pub fn advancing(db: &mut Db<'_>) -> QueryResult<Vec<TestClock>> {
    let rows: Vec<Row> = db_run!(db: {
        c::test_clocks.filter(c::status.eq(ADVANCING)).select(Row::as_select()).load(db)
    })?;
    rows.into_iter().map(Row::into_clock).collect()
}

/// The time of a subscription: its test clock's, or the real one.
pub fn time_of(db: &mut Db<'_>, clock: Option<&str>, real: i64) -> QueryResult<i64> {
    match clock {
        None => Ok(real),
        Some(uuid) => Ok(find(db, uuid)?.map_or(real, |c| c.frozen_time)),
    }
}
