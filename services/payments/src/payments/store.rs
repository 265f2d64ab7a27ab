//! Payments' own queries: where a payment's call stands (claimed, answered, settled),
//! its transitions and custom parameters. The record itself is read and written in
//! shared/store.rs.

use coffer_store::{Backend, Db, db_run};
use diesel::prelude::*;

use crate::schema::payments::dsl as p;
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::store::{Row, text};

/// Records the payments of billing's charge attempts in one statement, leaving out those
/// whose attempt has a payment already; the uuids of those recorded. The unique index on
/// the attempt decides, so nothing is read first.
pub fn insert_for_attempts(db: &mut Db<'_>, payments: &[Payment]) -> QueryResult<Vec<String>> {
    if payments.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<Row> = payments.iter().map(Row::from_payment).collect();
    db_run!(db: {
        diesel::insert_into(p::payments)
            .values(&rows)
            .on_conflict(p::charge_attempt_uuid)
            .do_nothing()
            .returning(p::uuid)
            .get_results(db)
    })
}

/// Moves a payment from `from` to `to`; false if it was no longer in `from` (someone else
/// moved it first), so a transition happens once whatever runs beside it.
pub fn transition(
    db: &mut Db<'_>,
    uuid: &str,
    from: PaymentStatus,
    to: PaymentStatus,
    cancel_reason: Option<&str>,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        // Never while its provider is being asked: the answer would undo the move.
        diesel::update(p::payments.filter(p::uuid.eq(uuid).and(p::status.eq(from)).and(p::charge_state.eq(ChargeState::Done))))
            .set((p::status.eq(to), p::cancel_reason.eq(cancel_reason), p::updated.eq(now), p::action.eq(None::<String>)))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// The payment, locked until the end of the transaction on PostgreSQL (SQLite's write
/// transaction already excludes every other writer).
pub fn find_for_update(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Payment>> {
    let row: Option<Row> = match db {
        Db::Pg(c) => p::payments
            .find(uuid)
            .select(Row::as_select())
            .for_update()
            .first(*c)
            .optional()?,
        Db::Sqlite(c) => p::payments
            .find(uuid)
            .select(Row::as_select())
            .first(*c)
            .optional()?,
    };
    row.map(Row::into_payment).transpose()
}

pub fn set_custom_parameters(
    db: &mut Db<'_>,
    uuid: &str,
    parameters: &serde_json::Value,
    now: i64,
) -> QueryResult<()> {
    let text = parameters.to_string();
    db_run!(db: {
        diesel::update(p::payments.find(uuid))
            .set((p::custom_parameters.eq(&text), p::updated.eq(now)))
            .execute(db)
            .map(drop)
    })
}

/// Records the subscription a payment started; a later event naming another changes nothing.
pub fn link_subscription(db: &mut Db<'_>, payment: &str, subscription: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(p::payments.find(payment).filter(p::subscription_uuid.is_null()))
            .set(p::subscription_uuid.eq(subscription))
            .execute(db)
            .map(drop)
    })
}

/// What a provider answered for a payment, as stored.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: PaymentStatus,
    pub reason: Option<String>,
    pub provider_payment_id: Option<String>,
    pub action: Option<serde_json::Value>,
    /// The payment source kept with the charge, if one was.
    pub source_uuid: Option<String>,
}

/// Records the provider's answer on a payment whose call is under way; false when it is
/// not (another process recorded it first, or it was never sent), so an answer is recorded
/// once however many hear it.
pub fn record_answer(
    db: &mut Db<'_>,
    uuid: &str,
    parameters_read: &serde_json::Value,
    answer: &Answer,
    now: i64,
) -> QueryResult<bool> {
    let action = answer.action.as_ref().map(text);
    let parameters_read = text(parameters_read);
    let changed = db_run!(db: {
        diesel::update(p::payments.filter(
            p::uuid.eq(uuid)
                .and(p::charge_state.eq(ChargeState::Calling))
                .and(p::custom_parameters.eq(&parameters_read)),
        ))
            .set((
                p::status.eq(answer.status),
                p::status_reason.eq(&answer.reason),
                p::provider_payment_id.eq(&answer.provider_payment_id),
                p::action.eq(&action),
                p::created_payment_source_uuid.eq(&answer.source_uuid),
                p::charge_state.eq(ChargeState::Done),
                p::updated.eq(now),
            ))
            .execute(db)
    })?;
    Ok(changed == 1)
}

/// [`record_answer`] for many payments at once: on PostgreSQL one statement for all of
/// them. Answers the uuids whose answer was recorded; the others were not under way any
/// more, or their custom parameters changed since `parameters_read` was read.
pub fn record_answers(
    db: &mut Db<'_>,
    answers: &[(&str, &serde_json::Value, &Answer)],
    now: i64,
) -> QueryResult<Vec<String>> {
    let Db::Pg(pg) = db else {
        let mut recorded = Vec::new();
        for (uuid, read, answer) in answers {
            if record_answer(db, uuid, read, answer, now)? {
                recorded.push((*uuid).to_owned());
            }
        }
        return Ok(recorded);
    };
    use diesel::sql_types::{Array, BigInt, Nullable, Text};
    #[derive(QueryableByName)]
    struct Recorded {
        #[diesel(sql_type = Text)]
        uuid: String,
    }
    let column = |f: &dyn Fn(&Answer) -> Option<String>| -> Vec<Option<String>> {
        answers.iter().map(|(_, _, a)| f(a)).collect()
    };
    let uuids: Vec<&str> = answers.iter().map(|(u, _, _)| *u).collect();
    let read: Vec<String> = answers.iter().map(|(_, r, _)| text(r)).collect();
    let statuses: Vec<&str> = answers.iter().map(|(_, _, a)| a.status.as_str()).collect();
    let rows: Vec<Recorded> = diesel::sql_query(
        "UPDATE payments AS p SET status = v.status, status_reason = v.reason, \
             provider_payment_id = v.provider_payment_id, action = v.action, \
             created_payment_source_uuid = v.source_uuid, charge_state = $7, updated = $8 \
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $9::text[]) \
             AS v(uuid, read, status, reason, provider_payment_id, action, source_uuid) \
         WHERE p.uuid = v.uuid AND p.charge_state = $10 AND p.custom_parameters = v.read \
         RETURNING p.uuid",
    )
    .bind::<Array<Text>, _>(&uuids)
    .bind::<Array<Text>, _>(&read)
    .bind::<Array<Text>, _>(&statuses)
    .bind::<Array<Nullable<Text>>, _>(column(&|a| a.reason.clone()))
    .bind::<Array<Nullable<Text>>, _>(column(&|a| a.provider_payment_id.clone()))
    .bind::<Array<Nullable<Text>>, _>(column(&|a| a.action.as_ref().map(text)))
    .bind::<Text, _>(ChargeState::Done.as_str())
    .bind::<BigInt, _>(now)
    .bind::<Array<Nullable<Text>>, _>(column(&|a| a.source_uuid.clone()))
    .bind::<Text, _>(ChargeState::Calling.as_str())
    .load(&mut **pg)?;
    Ok(rows.into_iter().map(|r| r.uuid).collect())
}

/// Calls of one account taken per pass of the settler at most.
pub const UNSETTLED_PER_ACCOUNT: i64 = 20;

/// Payments whose call began before `before` and has no recorded answer: a process
/// stopped, or the provider never answered. Taken in turns between accounts, each
/// account's oldest first and at most [`UNSETTLED_PER_ACCOUNT`] of it: an account whose
/// provider cannot be reached (thousands of calls unanswered, each waiting its timeout)
/// delays another account's settling by one of its calls per turn, never by all of them.
pub fn unsettled(db: &mut Db<'_>, before: i64, limit: i64) -> QueryResult<Vec<String>> {
    use diesel::sql_types::{BigInt, Text};
    #[derive(QueryableByName)]
    struct Unsettled {
        #[diesel(sql_type = Text)]
        uuid: String,
    }
    let (a, b, c) = match db.backend() {
        Backend::Postgres => ("$1", "$2", "$3"),
        Backend::Sqlite => ("?", "?", "?"),
    };
    // `charge_state = 'calling'` is written out so that the index on (charge_state,
    // charge_started) serves it under a generic plan.
    let sql = format!(
        "SELECT uuid FROM (\
             SELECT uuid, charge_started, ROW_NUMBER() OVER \
                 (PARTITION BY account_uuid ORDER BY charge_started) AS turn \
             FROM payments WHERE charge_state = 'calling' AND charge_started < {a}\
         ) AS calls WHERE turn <= {b} ORDER BY turn, charge_started LIMIT {c}"
    );
    let rows: Vec<Unsettled> = db_run!(db: {
        diesel::sql_query(&sql)
            .bind::<BigInt, _>(before)
            .bind::<BigInt, _>(UNSETTLED_PER_ACCOUNT)
            .bind::<BigInt, _>(limit)
            .load(db)
    })?;
    Ok(rows.into_iter().map(|r| r.uuid).collect())
}

/// When the oldest payment whose call is still unanswered was made, per provider (for the
/// metrics: it grows while a provider cannot be reached; `charge_started` would not, since
/// each settling pass takes the call again). Calls under way are few, and indexed.
pub fn oldest_calls(db: &mut Db<'_>) -> QueryResult<Vec<(String, Option<i64>)>> {
    use diesel::dsl::min;
    db_run!(db: {
        p::payments
            .filter(p::charge_state.eq(ChargeState::Calling))
            .group_by(p::payment_provider)
            .select((p::payment_provider, min(p::created)))
            .load(db)
    })
}

/// Payments that wait for their donor at a provider outside the process and began to wait
/// before `before`, longest waiting first. They began to wait when their call began
/// (`charge_started`), which nothing moves once the call is answered; `updated` moves with
/// every change of custom parameters, which would give the donor the wait again.
pub fn waiting(db: &mut Db<'_>, before: i64, limit: i64) -> QueryResult<Vec<String>> {
    db_run!(db: {
        // Written out rather than bound, so that the partial index on waiting payments
        // (payments_waiting_idx) serves a generic plan.
        p::payments
            .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
                "status = 'pending' AND charge_state = 'done' AND action IS NOT NULL \
                 AND payment_provider <> 'coffer_test'",
            ))
            .filter(p::charge_started.lt(before))
            .order(p::charge_started.asc())
            .limit(limit)
            .select(p::uuid)
            .load(db)
    })
}

/// The longest a payment pending with the bank goes without its provider being asked.
pub const ASK_AT_MOST_EVERY: i64 = 6 * 3600;
/// Payments asked about per account per pass (one pass per `settle_after`): a hundred a
/// minute is some 140,000 a day, enough for an account's 30,000 debits each asked four
/// times a day, while one account's many never hold up another's by more than this.
const WITH_BANK_PER_ACCOUNT: i64 = 100;

/// Payments pending with the bank at a provider outside the process whose provider is due
/// to be asked again at `now`: first `settle_after` after their call began, then each time
/// they have doubled their age since the last ask, at least `settle_after` and at most
/// [`ASK_AT_MOST_EVERY`] apart (a debit that takes days is asked about a few times a day,
/// not once a minute). Taken in turns between accounts, as the settler takes calls.
pub fn with_bank(
    db: &mut Db<'_>,
    now: i64,
    settle_after: i64,
    limit: i64,
) -> QueryResult<Vec<String>> {
    use diesel::sql_types::{BigInt, Text};
    #[derive(QueryableByName)]
    struct Due {
        #[diesel(sql_type = Text)]
        uuid: String,
    }
    let (now_at, settle, at_most, per, lim) = match db.backend() {
        Backend::Postgres => ("$1", "$2", "$3", "$4", "$5"),
        Backend::Sqlite => ("?1", "?2", "?3", "?4", "?5"),
    };
    // The condition on status, charge_state, action and provider is written out so that
    // the partial index payments_with_bank_idx serves it under a generic plan.
    // When each is due: its first ask `settle_after` after its call began, each later one
    // once it has doubled its age since the last, within the bounds. The most overdue go
    // first, in turns between accounts.
    let due = format!(
        "CASE WHEN a.asked IS NULL THEN p.charge_started + {settle} ELSE a.asked + CASE \
             WHEN a.asked - p.charge_started < {settle} THEN {settle} \
             WHEN a.asked - p.charge_started > {at_most} THEN {at_most} \
             ELSE a.asked - p.charge_started END END"
    );
    let sql = format!(
        "SELECT uuid FROM (\
             SELECT p.uuid, {due} AS due, ROW_NUMBER() OVER \
                 (PARTITION BY p.account_uuid ORDER BY {due}) AS turn \
             FROM payments p LEFT JOIN provider_asks a ON a.payment_uuid = p.uuid \
             WHERE p.status = 'pending' AND p.charge_state = 'done' \
                 AND p.action IS NULL AND p.payment_provider <> 'coffer_test' \
                 AND p.charge_started <= {now_at} - {settle}\
         ) AS pending WHERE due <= {now_at} AND turn <= {per} ORDER BY turn, due LIMIT {lim}"
    );
    let rows: Vec<Due> = db_run!(db: {
        diesel::sql_query(&sql)
            .bind::<BigInt, _>(now)
            .bind::<BigInt, _>(settle_after)
            .bind::<BigInt, _>(ASK_AT_MOST_EVERY)
            .bind::<BigInt, _>(WITH_BANK_PER_ACCOUNT)
            .bind::<BigInt, _>(limit)
            .load(db)
    })?;
    Ok(rows.into_iter().map(|r| r.uuid).collect())
}

/// Notes that the provider of the pending payment `uuid` was asked at `now`; nothing once
/// it has ended (its end forgot the asks already, and nothing would forget them again).
pub fn asked_provider(db: &mut Db<'_>, uuid: &str, now: i64) -> QueryResult<()> {
    use diesel::sql_types::{BigInt, Text};
    let (a, b) = match db.backend() {
        Backend::Postgres => ("$1", "$2"),
        Backend::Sqlite => ("?1", "?2"),
    };
    let sql = format!(
        "INSERT INTO provider_asks (payment_uuid, asked) \
         SELECT uuid, {b} FROM payments WHERE uuid = {a} AND status = 'pending' \
         ON CONFLICT (payment_uuid) DO UPDATE SET asked = excluded.asked"
    );
    db_run!(db: {
        diesel::sql_query(&sql)
            .bind::<Text, _>(uuid)
            .bind::<BigInt, _>(now)
            .execute(db)
    })?;
    Ok(())
}

/// Forgets when the provider of `uuid` was last asked about it, once it has ended.
pub fn forget_asks(db: &mut Db<'_>, uuid: &str) -> QueryResult<()> {
    use diesel::sql_types::Text;
    let sql = match db.backend() {
        Backend::Postgres => "DELETE FROM provider_asks WHERE payment_uuid = $1",
        Backend::Sqlite => "DELETE FROM provider_asks WHERE payment_uuid = ?1",
    };
    db_run!(db: { diesel::sql_query(sql).bind::<Text, _>(uuid).execute(db) })?;
    Ok(())
}

/// Payments recorded but not yet sent, oldest first.
pub fn reserved(db: &mut Db<'_>, limit: i64) -> QueryResult<Vec<String>> {
    db_run!(db: {
        // Written out rather than bound, so that a generic plan can use the partial
        // index on reserved payments (payments_reserved_idx).
        p::payments
            .filter(diesel::dsl::sql::<diesel::sql_types::Bool>("charge_state = 'reserved'"))
            .order(p::created.asc())
            .limit(limit)
            .select(p::uuid)
            .load(db)
    })
}

/// Takes the reserved payments among `uuids` into calls that begin `now`, in one
/// statement, and answers those this process took (another may have taken some first) as
/// they now stand. A reserved payment has no refunds yet, so none are read.
pub fn claim_reserved(db: &mut Db<'_>, uuids: &[String], now: i64) -> QueryResult<Vec<Payment>> {
    let rows: Vec<Row> = db_run!(db: {
        diesel::update(
            p::payments.filter(p::uuid.eq_any(uuids).and(p::charge_state.eq(ChargeState::Reserved))),
        )
        .set((p::charge_state.eq(ChargeState::Calling), p::charge_started.eq(now)))
        .returning(Row::as_returning())
        .get_results(db)
    })?;
    rows.into_iter().map(Row::into_payment).collect()
}

/// Records what the provider made ahead of the charge (connector.rs's `Prepared::Made`) on a
/// payment whose call is still the one that began at `started`: false when the settler has
/// taken it since (its claim moves `charge_started`), and then nothing may be charged: the
/// settler may already have looked for what the call made, and missed it.
pub fn record_prepared(
    db: &mut Db<'_>,
    uuid: &str,
    started: i64,
    provider_payment_id: &str,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(
            p::payments.filter(
                p::uuid
                    .eq(uuid)
                    .and(p::charge_state.eq(ChargeState::Calling))
                    .and(p::charge_started.eq(started)),
            ),
        )
        .set(p::provider_payment_id.eq(Some(provider_payment_id)))
        .execute(db)
    })?;
    Ok(changed == 1)
}

/// Takes a payment from `from` into a call that begins `now`; false when another process
/// took it first (or, settling, looked at it after `before`).
pub fn claim_call(
    db: &mut Db<'_>,
    uuid: &str,
    from: ChargeState,
    before: i64,
    now: i64,
) -> QueryResult<bool> {
    let changed = db_run!(db: {
        diesel::update(
            p::payments.filter(
                p::uuid
                    .eq(uuid)
                    .and(p::charge_state.eq(from))
                    .and(p::charge_started.is_null().or(p::charge_started.lt(before))),
            ),
        )
        .set((p::charge_state.eq(ChargeState::Calling), p::charge_started.eq(now)))
        .execute(db)
    })?;
    Ok(changed == 1)
}
