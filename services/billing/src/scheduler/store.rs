//! The scheduler's queries: claiming the next batch of due rows, and the marks of charges
//! announced ahead. Every value is a bound parameter; the only choices made in the text
//! are between whole constant clauses (which clock, which database's lock).

use coffer_store::{Backend, Db, db_run};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use crate::schema::subscriptions::dsl as s;

/// Subscriptions (or invoices) handled per transaction; a constant of the query texts
/// (see [`BATCH`]).
macro_rules! batch {
    () => {
        "1000"
    };
}

/// Subscriptions (or invoices) handled per transaction.
pub const BATCH: i64 = 1000;

/// One selection, for the real clock's subscriptions and for one test clock's. Its
/// parameters are now (when the selection needs it), then the test clock, numbered in the
/// order they first appear: SQLite numbers `$N` parameters that way.
pub struct Claim {
    real: &'static str,
    test: &'static str,
    uses_now: bool,
    /// The table (alias) whose rows are locked, where the selection joins another.
    lock_of: &'static str,
}

/// The same selection twice, its scope spliced in at compile time.
macro_rules! claim {
    ($before:literal, $after:literal, clock: $clock:literal, uses_now: $now:literal) => {
        claim!($before, $after, clock: $clock, uses_now: $now, lock_of: "")
    };
    ($before:literal, $after:literal, clock: $clock:literal, uses_now: $now:literal, lock_of: $of:literal) => {
        Claim {
            real: concat!(
                $before,
                "test_clock_uuid IS NULL",
                $after,
                " LIMIT ",
                batch!()
            ),
            test: concat!(
                $before,
                "test_clock_uuid = ",
                $clock,
                $after,
                " LIMIT ",
                batch!()
            ),
            uses_now: $now,
            lock_of: $of,
        }
    };
}

/// Subscriptions whose plan announces charges ahead and whose next charge is near its
/// announcement. The day arithmetic is approximate (a day is not always 86,400 s in a
/// zone), so the query takes two hours more and the command decides exactly.
///
/// It is a join from the plans that announce (few, often none) into each one's window of
/// the (plan, next charge) index, locking only the subscriptions: written as a filter on
/// every subscription, it read them all on every pass (0.3 s each second with 100,000).
pub const NEAR_THEIR_ANNOUNCEMENT: Claim = claim!(
    "SELECT s.uuid FROM subscription_plans p JOIN subscriptions s ON s.plan_uuid = p.uuid \
     WHERE p.notify_before_charge_days IS NOT NULL \
     AND s.status IN ('active', 'suspended') AND s.next_due_date > $1 \
     AND s.next_due_date <= $1 + 86400 * p.notify_before_charge_days + 7200 \
     AND (s.upcoming_announced IS NULL OR s.upcoming_announced <> s.next_due_date) AND s.",
    " ORDER BY s.next_due_date",
    clock: "$2",
    uses_now: true,
    lock_of: " OF s"
);

/// Subscriptions with a charge date that has come. (The status list is the partial
/// index's, written the same so that it is used.)
pub const DUE: Claim = claim!(
    "SELECT uuid FROM subscriptions WHERE status IN ('active', 'suspended') \
     AND next_due_date <= $1 AND ",
    " ORDER BY next_due_date",
    clock: "$2",
    uses_now: true
);

/// Open invoices whose next try has come.
pub const RETRIES: Claim = claim!(
    "SELECT uuid FROM invoices WHERE status = 'open' AND next_attempt_date <= $1 \
     AND subscription_uuid IN (SELECT uuid FROM subscriptions WHERE ",
    ") ORDER BY next_attempt_date",
    clock: "$2",
    uses_now: true
);

/// Suspended subscriptions with an end, which the command compares with today. (The
/// status is the partial index's, written the same so that it is used.)
pub const SUSPENDED_UNTIL: Claim = claim!(
    "SELECT uuid FROM subscriptions WHERE status = 'suspended' \
     AND suspension_end IS NOT NULL AND ",
    "",
    clock: "$1",
    uses_now: false
);

/// Whether any plan announces charges ahead (`notify_before_charge_days`).
pub fn any_plan_announces(db: &mut Db<'_>) -> QueryResult<bool> {
    use crate::schema::subscription_plans::dsl as p;
    db_run!(db: {
        diesel::select(diesel::dsl::exists(
            p::subscription_plans.filter(p::notify_before_charge_days.is_not_null()),
        ))
        .get_result(db)
    })
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Text)]
    uuid: String,
}

/// The next batch of rows `claim` selects at `now`, on the real clock (`clock` none) or
/// one test clock, locked for this transaction on PostgreSQL and skipped by the others.
pub fn claim(
    tx: &mut Db<'_>,
    claim: &Claim,
    now: i64,
    clock: Option<&str>,
) -> QueryResult<Vec<String>> {
    let text = match clock {
        None => claim.real,
        Some(_) => claim.test,
    };
    let sql = match tx.backend() {
        Backend::Postgres => format!("{text} FOR UPDATE{} SKIP LOCKED", claim.lock_of),
        Backend::Sqlite => text.to_owned(),
    };
    let ids: Vec<Id> = db_run!(tx: {
        let mut q = diesel::sql_query(&sql).into_boxed();
        if claim.uses_now {
            q = q.bind::<BigInt, _>(now);
        }
        if let Some(clock) = clock {
            q = q.bind::<Text, _>(clock.to_owned());
        }
        q.load(tx)
    })?;
    Ok(ids.into_iter().map(|i| i.uuid).collect())
}

/// The charge date last announced for each of these subscriptions.
pub fn announced(db: &mut Db<'_>, uuids: &[String]) -> QueryResult<Vec<(String, Option<i64>)>> {
    db_run!(db: {
        s::subscriptions
            .filter(s::uuid.eq_any(uuids))
            .select((s::uuid, s::upcoming_announced))
            .load(db)
    })
}

/// Marks the charge at `due` as announced (or passed over, when it will not happen).
pub fn mark(db: &mut Db<'_>, uuid: &str, due: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(s::subscriptions.find(uuid))
            .set(s::upcoming_announced.eq(Some(due)))
            .execute(db)
            .map(drop)
    })
}

#[cfg(test)]
mod tests {
    use super::{DUE, NEAR_THEIR_ANNOUNCEMENT, RETRIES, SUSPENDED_UNTIL};
    use crate::invoices::domain::InvoiceStatus::Open;
    use crate::subscriptions::domain::SubscriptionStatus::{Active, Suspended};

    #[test]
    fn the_batch_of_the_query_texts_is_the_batch() {
        assert_eq!(super::BATCH.to_string(), batch!());
    }

    /// The statuses are written into the statements, not bound (a bound value does not
    /// match a partial index's predicate); written, they are the enums' texts.
    #[test]
    fn the_statements_name_statuses_by_their_enums_texts() {
        let scheduled = format!("status IN ('{Active}', '{Suspended}')");
        for claim in [&DUE, &NEAR_THEIR_ANNOUNCEMENT] {
            assert!(claim.real.contains(&scheduled), "{}", claim.real);
            assert!(claim.test.contains(&scheduled), "{}", claim.test);
        }
        assert!(RETRIES.real.contains(&format!("status = '{Open}'")));
        assert!(
            SUSPENDED_UNTIL
                .real
                .contains(&format!("status = '{Suspended}'"))
        );
    }
}
