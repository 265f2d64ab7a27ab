//! Delivery tasks in the database.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::deliveries::domain::task::{Standing, Task, TaskState};
use crate::schema::delivery_tasks::dsl as t;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::delivery_tasks)]
// An absent value is written as NULL, not DEFAULT, so that many rows go in one statement
// on SQLite too (which has no DEFAULT in a multi-row VALUES).
#[diesel(treat_none_as_default_value = false)]
struct Row {
    uuid: String,
    event_uuid: String,
    event_name: String,
    endpoint_uuid: String,
    organisation_uuid: String,
    account_uuid: Option<String>,
    object_uuid: String,
    body: String,
    state: TaskState,
    tries: i32,
    max_tries: i32,
    due_ms: i64,
    created_ms: i64,
    updated_ms: i64,
}

impl Row {
    fn into_task(self) -> QueryResult<Task> {
        Ok(Task {
            uuid: self.uuid,
            event_uuid: self.event_uuid,
            event_name: self.event_name,
            endpoint_uuid: self.endpoint_uuid,
            organisation_uuid: self.organisation_uuid,
            account_uuid: self.account_uuid,
            object_uuid: self.object_uuid,
            body: self.body,
            state: self.state,
            tries: self.tries,
            max_tries: self.max_tries,
            due_ms: self.due_ms,
        })
    }
}

/// Adds tasks, many to a statement; one the event already has for the same endpoint is
/// left as it is (a redelivered event makes no second task).
pub fn insert(db: &mut Db<'_>, tasks: &[Task], now_ms: i64) -> QueryResult<usize> {
    let rows: Vec<Row> = tasks
        .iter()
        .map(|x| Row {
            uuid: x.uuid.clone(),
            event_uuid: x.event_uuid.clone(),
            event_name: x.event_name.clone(),
            endpoint_uuid: x.endpoint_uuid.clone(),
            organisation_uuid: x.organisation_uuid.clone(),
            account_uuid: x.account_uuid.clone(),
            object_uuid: x.object_uuid.clone(),
            body: x.body.clone(),
            state: x.state,
            tries: x.tries,
            max_tries: x.max_tries,
            due_ms: x.due_ms,
            created_ms: now_ms,
            updated_ms: now_ms,
        })
        .collect();
    let mut inserted = 0;
    // 14 columns: a chunk stays well under SQLite's limit of bound values.
    for chunk in rows.chunks(500) {
        inserted += db_run!(db: {
            diesel::insert_into(t::delivery_tasks)
                .values(chunk)
                .on_conflict((t::event_uuid, t::endpoint_uuid))
                .do_nothing()
                .execute(db)
        })?;
    }
    Ok(inserted)
}

#[derive(QueryableByName)]
struct EndpointDue {
    #[diesel(sql_type = diesel::sql_types::Text)]
    endpoint_uuid: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    organisation_uuid: Option<String>,
}

/// Up to `limit` endpoints after `after` with tasks due at `now_ms`, in order of their
/// uuids, each with its organisation. Each is found with one index probe (a loose scan of
/// the (endpoint, due) index), so an endpoint's backlog, however long, costs one row here;
/// its organisation is read from one of its tasks.
pub fn endpoints_due(
    db: &mut Db<'_>,
    now_ms: i64,
    after: &str,
    limit: i64,
) -> QueryResult<Vec<(String, String)>> {
    // Written into the statement, not bound, so that it matches the partial index's
    // `WHERE state = 'pending'` and the index is used.
    let pending = format!("state = '{}'", TaskState::Pending);
    let scan = |now: &str, after: &str, limit: &str| {
        format!(
            "WITH RECURSIVE e(endpoint_uuid) AS (\
               SELECT (SELECT endpoint_uuid FROM delivery_tasks WHERE {pending} AND due_ms <= {now} \
                       AND endpoint_uuid > {after} ORDER BY endpoint_uuid LIMIT 1) \
               UNION ALL \
               SELECT (SELECT t.endpoint_uuid FROM delivery_tasks t WHERE t.{pending} AND t.due_ms <= {now} \
                       AND t.endpoint_uuid > e.endpoint_uuid ORDER BY t.endpoint_uuid LIMIT 1) \
               FROM e WHERE e.endpoint_uuid IS NOT NULL) \
             SELECT e.endpoint_uuid, (SELECT o.organisation_uuid FROM delivery_tasks o \
                       WHERE o.{pending} AND o.endpoint_uuid = e.endpoint_uuid LIMIT 1) AS organisation_uuid \
             FROM e WHERE e.endpoint_uuid IS NOT NULL LIMIT {limit}"
        )
    };
    use diesel::sql_types::{BigInt, Text};
    let rows: Vec<EndpointDue> = match db {
        Db::Pg(conn) => diesel::sql_query(scan("$1", "$2", "$3"))
            .bind::<BigInt, _>(now_ms)
            .bind::<Text, _>(after)
            .bind::<BigInt, _>(limit)
            .load(*conn)?,
        Db::Sqlite(conn) => diesel::sql_query(scan("?1", "?2", "?3"))
            .bind::<BigInt, _>(now_ms)
            .bind::<Text, _>(after)
            .bind::<BigInt, _>(limit)
            .load(*conn)?,
    };
    Ok(rows
        .into_iter()
        .map(|r| (r.endpoint_uuid, r.organisation_uuid.unwrap_or_default()))
        .collect())
}

/// Up to `limit` of `endpoint`'s tasks due at `now_ms`, soonest first, read whole. On
/// PostgreSQL they stay locked until the transaction ends and rows another sender holds are
/// skipped, so replicas share the work; SQLite's write transaction is exclusive already.
pub fn due_of(db: &mut Db<'_>, endpoint: &str, now_ms: i64, limit: i64) -> QueryResult<Vec<Task>> {
    let query = t::delivery_tasks
        .filter(t::state.eq(TaskState::Pending))
        .filter(t::endpoint_uuid.eq(endpoint))
        .filter(t::due_ms.le(now_ms))
        .order(t::due_ms.asc())
        .limit(limit);
    let rows: Vec<Row> = match db {
        Db::Pg(conn) => query
            .select(Row::as_select())
            .for_update()
            .skip_locked()
            .load(*conn),
        Db::Sqlite(conn) => query.select(Row::as_select()).load(*conn),
    }?;
    rows.into_iter().map(Row::into_task).collect()
}

/// Begins a try of each of `uuids`: counts it, and holds the task until `lease_until`.
pub fn begin_tries(
    db: &mut Db<'_>,
    uuids: &[String],
    lease_until: i64,
    now_ms: i64,
) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(t::delivery_tasks.filter(t::uuid.eq_any(uuids)))
            .set((
                t::tries.eq(t::tries + 1),
                t::due_ms.eq(lease_until),
                t::updated_ms.eq(now_ms),
            ))
            .execute(db)
            .map(drop)
    })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Task>> {
    let row: Option<Row> = db_run!(db: {
        t::delivery_tasks.find(uuid).select(Row::as_select()).first(db).optional()
    })?;
    row.map(Row::into_task).transpose()
}

/// Where the tasks of `uuids` that exist stand, their bodies left unread.
pub fn standing_many(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<Standing>> {
    let rows: Vec<(String, String, String, TaskState, i32, i32)> = db_run!(db: {
        t::delivery_tasks
            .filter(t::uuid.eq_any(uuids))
            .select((t::uuid, t::event_name, t::endpoint_uuid, t::state, t::tries, t::max_tries))
            .load(db)
    })?;
    Ok(rows
        .into_iter()
        .map(
            |(uuid, event_name, endpoint_uuid, state, tries, max_tries)| Standing {
                uuid,
                event_name,
                endpoint_uuid,
                state,
                tries,
                max_tries,
            },
        )
        .collect())
}

/// Sets where a task stands and when it is next due.
pub fn settle(
    db: &mut Db<'_>,
    uuid: &str,
    state: TaskState,
    due_ms: i64,
    now_ms: i64,
) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(t::delivery_tasks.find(uuid))
            .set((t::state.eq(state), t::due_ms.eq(due_ms), t::updated_ms.eq(now_ms)))
            .execute(db)
            .map(drop)
    })
}

/// Sets where each of `uuids` stands, due at `now_ms` (for those that are finished).
pub fn settle_many(
    db: &mut Db<'_>,
    uuids: &[String],
    state: TaskState,
    now_ms: i64,
) -> QueryResult<()> {
    if uuids.is_empty() {
        return Ok(());
    }
    db_run!(db: {
        diesel::update(t::delivery_tasks.filter(t::uuid.eq_any(uuids)))
            .set((t::state.eq(state), t::due_ms.eq(now_ms), t::updated_ms.eq(now_ms)))
            .execute(db)
            .map(drop)
    })
}

/// Makes a task due now for one more try, whatever it stands at.
pub fn again(db: &mut Db<'_>, uuid: &str, now_ms: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(t::delivery_tasks.find(uuid))
            .set((
                t::state.eq(TaskState::Pending),
                t::max_tries.eq(t::tries + 1),
                t::due_ms.eq(now_ms),
                t::updated_ms.eq(now_ms),
            ))
            .execute(db)
            .map(drop)
    })
}

/// Pending tasks, and when the longest-waiting of those due fell due (Unix ms).
pub fn waiting(db: &mut Db<'_>, now_ms: i64) -> QueryResult<(i64, Option<i64>)> {
    let pending = t::delivery_tasks.filter(t::state.eq(TaskState::Pending));
    let count: i64 = db_run!(db: { pending.count().get_result(db) })?;
    let oldest: Option<i64> = db_run!(db: {
        pending
            .filter(t::due_ms.le(now_ms))
            .select(diesel::dsl::min(t::due_ms))
            .first(db)
    })?;
    Ok((count, oldest))
}

/// Removes finished tasks last changed before `before_ms`, at most `limit` of them.
pub fn purge(db: &mut Db<'_>, before_ms: i64, limit: i64) -> QueryResult<usize> {
    db_run!(db: {
        let old: Vec<String> = t::delivery_tasks
            .filter(t::state.ne(TaskState::Pending))
            .filter(t::updated_ms.lt(before_ms))
            .select(t::uuid)
            .limit(limit)
            .load(db)?;
        diesel::delete(t::delivery_tasks.filter(t::uuid.eq_any(old))).execute(db)
    })
}
