use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::rows::AddressRow;
use crate::schema::addresses::dsl as ad;

/// Whose addresses: an organisation's or an account's.
#[derive(Debug, Clone, Copy)]
pub enum Owner<'a> {
    Organisation(&'a str),
    Account(&'a str),
}

pub fn insert(conn: &mut Db<'_>, row: &AddressRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(ad::addresses).values(row).execute(conn).map(drop) })
}

pub fn list(conn: &mut Db<'_>, owner: Owner<'_>) -> QueryResult<Vec<AddressRow>> {
    db_run!(conn: {
        let q = ad::addresses.select(AddressRow::as_select()).into_boxed();
        let q = match owner {
            Owner::Organisation(uuid) => q.filter(ad::organisation_uuid.eq(uuid)),
            Owner::Account(uuid) => q.filter(ad::account_uuid.eq(uuid)),
        };
        q.order((ad::created.asc(), ad::uuid.asc())).load(conn)
    })
}

pub fn find(conn: &mut Db<'_>, owner: Owner<'_>, uuid: &str) -> QueryResult<Option<AddressRow>> {
    db_run!(conn: {
        let q = ad::addresses.filter(ad::uuid.eq(uuid)).select(AddressRow::as_select()).into_boxed();
        let q = match owner {
            Owner::Organisation(o) => q.filter(ad::organisation_uuid.eq(o)),
            Owner::Account(a) => q.filter(ad::account_uuid.eq(a)),
        };
        q.first(conn).optional()
    })
}
