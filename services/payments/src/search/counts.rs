//! Searches answered from kept counts (migration 000007_payment_counts). `payment_counts`
//! holds one row per organisation, account, mode, status, method and currency; a trigger
//! appends each payment's +1/-1 to `payment_count_changes`, and [`fold`] moves those into
//! `payment_counts`. Any condition on those columns alone holds for a whole row of counts,
//! so a search that filters and groups only on them adds counts up instead of counting
//! payments, however many payments match.

use std::time::Duration;

use coffer_store::{Backend, Db, Store, db_run};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Bool;

use coffer_search::{Field, Filter};

/// The columns `payment_counts` is kept by, as the search names them in SQL.
const COUNTED: [&str; 6] = [
    "organisation_uuid",
    "account_uuid",
    "test_mode",
    "status",
    "payment_method",
    "currency",
];

/// Read in place of `payments` by a counted search: the same column names, and `c`
/// payments per row. Both tables are read by one statement, so a fold running at the same
/// time is seen either wholly or not at all.
pub const SOURCE: &str = "(SELECT organisation_uuid, account_uuid, test_mode, status, \
    payment_method, currency, n AS c FROM payment_counts \
    UNION ALL SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, \
    currency, n AS c FROM payment_count_changes) AS payments";

pub fn counted(field: &Field) -> bool {
    matches!(field, Field::Column { name, .. } if COUNTED.contains(name))
}

/// Whether every field the filter looks at is a counted one.
pub fn answerable(filter: &Filter) -> bool {
    match filter {
        Filter::Match(f, _) | Filter::Range(f, _) | Filter::Exists(f) => counted(f),
        Filter::And(parts) | Filter::Or(parts) => parts.iter().all(answerable),
        Filter::Not(inner) => answerable(inner),
    }
}

const COLUMNS: &str =
    "organisation_uuid, account_uuid, test_mode, status, payment_method, currency";

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = Bool)]
    pending: bool,
}

/// Moves the appended changes into `payment_counts`. On PostgreSQL the rows folded are
/// exactly the rows deleted (one statement), so a change committed meanwhile waits for the
/// next fold; on SQLite the write lock keeps everyone else out.
pub fn fold(db: &mut Db<'_>) -> QueryResult<()> {
    let pending = db_run!(db: {
        diesel::sql_query(
            "SELECT EXISTS (SELECT 1 FROM payment_count_changes) AS pending",
        )
        .load::<Pending>(db)
    })?;
    if !pending.first().is_some_and(|p| p.pending) {
        return Ok(());
    }
    let upsert = format!("ON CONFLICT ({COLUMNS}) DO UPDATE SET n = payment_counts.n + excluded.n");
    match db.backend() {
        Backend::Postgres => {
            let sql = format!(
                "WITH moved AS (DELETE FROM payment_count_changes RETURNING {COLUMNS}, n) \
                 INSERT INTO payment_counts ({COLUMNS}, n) \
                 SELECT {COLUMNS}, SUM(n) FROM moved GROUP BY {COLUMNS} {upsert}"
            );
            db_run!(db: { db.batch_execute(&sql) })
        }
        Backend::Sqlite => db.write_tx(|tx| {
            let sql = format!(
                "INSERT INTO payment_counts ({COLUMNS}, n) \
                 SELECT {COLUMNS}, SUM(n) FROM payment_count_changes WHERE true \
                 GROUP BY {COLUMNS} {upsert}; \
                 DELETE FROM payment_count_changes;"
            );
            db_run!(tx: { tx.batch_execute(&sql) })
        }),
    }
}

/// Folds every `every`, for as long as the service runs. A fold that fails is retried at
/// the next tick; searches stay right meanwhile, only slower.
pub async fn fold_forever(store: Store, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = store.query(fold).await {
            tracing::warn!(error = %e, "folding payment counts failed; retrying");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::search::schema::PAYMENTS;
    use serde_json::{Value, json};

    fn parse(property: &str, query: &Value) -> Result<Filter, coffer_model::FieldError> {
        coffer_search::query::parse(&PAYMENTS, property, query)
    }

    #[test]
    fn only_filters_on_counted_columns_are_answerable() {
        let yes = json!({"$and": [
            {"$match": {"account_uuid": "a", "status": "succeeded"}},
            {"$not": {"$match": {"payment_method": "card"}}},
            {"$or": [{"$match": {"test_mode": true}}, {"$exists": "amount.currency"}]}
        ]});
        assert!(answerable(&parse("query", &yes).unwrap()));
        for no in [
            json!({"$match": {"supporter.email": "a@b.ch"}}),
            json!({"$range": {"amount.value": {"gt": 5}}}),
            json!({"$and": [{"$match": {"status": "failed"}}, {"$exists": "uuid"}]}),
            json!({"$match": {"custom_parameters.campaign": "x"}}),
        ] {
            assert!(!answerable(&parse("query", &no).unwrap()), "{no}");
        }
    }
}
