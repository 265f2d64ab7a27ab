//! Searches answered from kept counts (migration 000007_payment_counts). `payment_counts`
//! holds one row per organisation, account, mode, status, method and currency; a trigger
//! appends each payment's +1/-1 to `payment_count_changes`, and [`fold`] moves those into
//! `payment_counts`. Any condition on those columns alone holds for a whole row of counts,
//! so a search that filters and groups only on them adds counts up instead of counting
//! payments, however many payments match.

use coffer_store::{Backend, Db, db_run};
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
    coffer_search::rollup::only_counted(filter, &counted)
}

const COLUMNS: &str =
    "organisation_uuid, account_uuid, test_mode, status, payment_method, currency";

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = Bool)]
    pending: bool,
}

/// Moves the appended changes into `payment_counts`.
pub fn fold(db: &mut Db<'_>) -> QueryResult<()> {
    fold_into(db, ("payment_count_changes", "payment_counts"), COLUMNS)
}

/// Moves the changes of `changes` into `kept`, both kept by `columns` with a count `n`
/// (payment counts here, parameter counts in parameters.rs). On PostgreSQL the rows
/// folded are exactly the rows deleted (one statement), so a change committed meanwhile
/// waits for the next fold; on SQLite the write lock keeps everyone else out. A row that
/// comes to nothing stays (its group may fill again); searches skip it.
pub(crate) fn fold_into(
    db: &mut Db<'_>,
    (changes, kept): (&str, &str),
    columns: &str,
) -> QueryResult<()> {
    let pending = db_run!(db: {
        diesel::sql_query(format!("SELECT EXISTS (SELECT 1 FROM {changes}) AS pending"))
            .load::<Pending>(db)
    })?;
    if !pending.first().is_some_and(|p| p.pending) {
        return Ok(());
    }
    let upsert = format!("ON CONFLICT ({columns}) DO UPDATE SET n = {kept}.n + excluded.n");
    match db.backend() {
        Backend::Postgres => {
            let sql = format!(
                "WITH moved AS (DELETE FROM {changes} RETURNING {columns}, n) \
                 INSERT INTO {kept} ({columns}, n) \
                 SELECT {columns}, SUM(n) FROM moved GROUP BY {columns} {upsert}"
            );
            db_run!(db: { db.batch_execute(&sql) })
        }
        Backend::Sqlite => db.write_tx(|tx| {
            let sql = format!(
                "INSERT INTO {kept} ({columns}, n) \
                 SELECT {columns}, SUM(n) FROM {changes} WHERE true \
                 GROUP BY {columns} {upsert}; \
                 DELETE FROM {changes};"
            );
            db_run!(tx: { tx.batch_execute(&sql) })
        }),
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
