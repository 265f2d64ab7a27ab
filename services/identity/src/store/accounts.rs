use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::rows::{AccountRow, OrganisationRow};
use crate::schema::{accounts::dsl as a, organisations::dsl as o};

pub fn insert(conn: &mut Db<'_>, row: &AccountRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(a::accounts).values(row).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<AccountRow>> {
    db_run!(conn: { a::accounts.find(uuid).select(AccountRow::as_select()).first(conn).optional() })
}

pub fn find_with_organisation(
    conn: &mut Db<'_>,
    uuid: &str,
) -> QueryResult<Option<(AccountRow, OrganisationRow)>> {
    db_run!(conn: {
        a::accounts
            .inner_join(o::organisations)
            .filter(a::uuid.eq(uuid))
            .select((AccountRow::as_select(), OrganisationRow::as_select()))
            .first(conn)
            .optional()
    })
}

pub fn of_organisation(conn: &mut Db<'_>, organisation: &str) -> QueryResult<Vec<AccountRow>> {
    db_run!(conn: {
        a::accounts
            .filter(a::organisation_uuid.eq(organisation))
            .select(AccountRow::as_select())
            .order((a::created.asc(), a::uuid.asc()))
            .load(conn)
    })
}

pub fn uuids_of_organisations(
    conn: &mut Db<'_>,
    organisations: &[String],
) -> QueryResult<Vec<String>> {
    db_run!(conn: {
        a::accounts
            .filter(a::organisation_uuid.eq_any(organisations))
            .select(a::uuid)
            .order(a::uuid.asc())
            .load(conn)
    })
}

/// Accounts of the organisations in `organisations` plus those in `accounts`; every
/// account when `visible` is `None`.
pub fn list(
    conn: &mut Db<'_>,
    visible: Option<(&[String], &[String])>,
    limit: i64,
) -> QueryResult<Vec<AccountRow>> {
    db_run!(conn: {
        let mut q = a::accounts.select(AccountRow::as_select()).into_boxed();
        if let Some((organisations, accounts)) = visible {
            q = q.filter(a::organisation_uuid.eq_any(organisations).or(a::uuid.eq_any(accounts)));
        }
        q.order((a::created.asc(), a::uuid.asc())).limit(limit).load(conn)
    })
}
