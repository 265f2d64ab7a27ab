use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::rows::BillingRow;
use crate::schema::billing_data::dsl as b;

pub fn upsert(conn: &mut Db<'_>, row: &BillingRow) -> QueryResult<()> {
    db_run!(conn: {
        diesel::insert_into(b::billing_data)
            .values(row)
            .on_conflict(b::account_uuid)
            .do_update()
            .set(row)
            .execute(conn)
            .map(drop)
    })
}

pub fn find(conn: &mut Db<'_>, account: &str) -> QueryResult<Option<BillingRow>> {
    db_run!(conn: {
        b::billing_data.find(account).select(BillingRow::as_select()).first(conn).optional()
    })
}
