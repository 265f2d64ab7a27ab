use std::collections::BTreeMap;

use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use super::domain::Owner;
use crate::address::AddressInput;
use crate::schema::addresses::dsl as ad;
use crate::schema::metadata::dsl as m;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::addresses)]
pub struct AddressRow {
    pub uuid: String,
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<String>,
    pub created: i64,
    pub address_line1: String,
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
    pub kind: String,
}

impl AddressRow {
    /// A new address of `owner`, from a checked input.
    pub fn new(valid: AddressInput, owner: &Owner, now: i64) -> Self {
        let (organisation_uuid, account_uuid) = match owner {
            Owner::Organisation(o) => (Some(o.clone()), None),
            Owner::Account(a) => (None, Some(a.clone())),
        };
        AddressRow {
            uuid: uuid::Uuid::new_v4().to_string(),
            organisation_uuid,
            account_uuid,
            created: now,
            address_line1: valid.address_line1,
            address_line2: valid.address_line2,
            postal_code: valid.postal_code,
            city: valid.city,
            country_code: valid.country_code,
            kind: valid.kind,
        }
    }
}

/// Whose addresses: an organisation's or an account's.
#[derive(Debug, Clone, Copy)]
pub enum OwnerRef<'a> {
    Organisation(&'a str),
    Account(&'a str),
}

pub fn insert_address(conn: &mut Db<'_>, row: &AddressRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(ad::addresses).values(row).execute(conn).map(drop) })
}

pub fn list_addresses(conn: &mut Db<'_>, owner: OwnerRef<'_>) -> QueryResult<Vec<AddressRow>> {
    db_run!(conn: {
        let q = ad::addresses.select(AddressRow::as_select()).into_boxed();
        let q = match owner {
            OwnerRef::Organisation(uuid) => q.filter(ad::organisation_uuid.eq(uuid)),
            OwnerRef::Account(uuid) => q.filter(ad::account_uuid.eq(uuid)),
        };
        q.order((ad::created.asc(), ad::uuid.asc())).load(conn)
    })
}

pub fn find_address(
    conn: &mut Db<'_>,
    owner: OwnerRef<'_>,
    uuid: &str,
) -> QueryResult<Option<AddressRow>> {
    db_run!(conn: {
        let q = ad::addresses.filter(ad::uuid.eq(uuid)).select(AddressRow::as_select()).into_boxed();
        let q = match owner {
            OwnerRef::Organisation(o) => q.filter(ad::organisation_uuid.eq(o)),
            OwnerRef::Account(a) => q.filter(ad::account_uuid.eq(a)),
        };
        q.first(conn).optional()
    })
}

pub fn metadata(conn: &mut Db<'_>, owner: &str) -> QueryResult<BTreeMap<String, String>> {
    db_run!(conn: {
        let pairs: Vec<(String, String)> =
            m::metadata.filter(m::owner_uuid.eq(owner)).select((m::key, m::value)).load(conn)?;
        Ok(pairs.into_iter().collect())
    })
}

/// Sets the given keys, leaving others as they are.
pub fn upsert_metadata(
    conn: &mut Db<'_>,
    owner: &str,
    entries: &BTreeMap<String, String>,
) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            for (key, value) in entries {
                diesel::insert_into(m::metadata)
                    .values((m::owner_uuid.eq(owner), m::key.eq(key), m::value.eq(value)))
                    .on_conflict((m::owner_uuid, m::key))
                    .do_update()
                    .set(m::value.eq(value))
                    .execute(conn)?;
            }
            Ok(())
        })
    })
}
