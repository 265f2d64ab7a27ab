use super::domain::BillingInput;
use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::directory::{AccountRow, OrganisationRow};
use crate::schema::{accounts::dsl as a, billing_data::dsl as b, organisations::dsl as o};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = crate::schema::billing_data)]
pub struct BillingRow {
    pub account_uuid: String,
    pub account_holder: String,
    pub iban: String,
    pub vat_number: String,
    /// A JSON array of e-mail addresses.
    pub recipient_emails: String,
    pub address_line1: String,
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
}

impl BillingRow {
    /// An account's billing data, from a checked input.
    pub fn new(account_uuid: &str, valid: &BillingInput) -> Self {
        BillingRow {
            account_uuid: account_uuid.to_owned(),
            account_holder: valid.account_holder.clone(),
            iban: valid.iban.clone(),
            vat_number: valid.vat_number.clone(),
            recipient_emails: serde_json::to_string(&valid.recipient_emails)
                .unwrap_or_else(|_| "[]".into()),
            address_line1: valid.address.address_line1.clone(),
            address_line2: valid.address.address_line2.clone(),
            postal_code: valid.address.postal_code.clone(),
            city: valid.address.city.clone(),
            country_code: valid.address.country_code.clone(),
        }
    }
}

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

pub fn upsert_billing(conn: &mut Db<'_>, row: &BillingRow) -> QueryResult<()> {
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

pub fn find_billing(conn: &mut Db<'_>, account: &str) -> QueryResult<Option<BillingRow>> {
    db_run!(conn: {
        b::billing_data.find(account).select(BillingRow::as_select()).first(conn).optional()
    })
}
