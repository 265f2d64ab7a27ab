use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::users::dsl as u;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::users)]
pub struct UserRow {
    pub uuid: String,
    pub email: String,
    pub email_key: String,
    pub name: String,
    pub organisation_uuid: String,
    pub locale: Option<String>,
    pub password_hash: Option<String>,
    pub created: i64,
    pub updated: i64,
}

/// Stores a user unless one has the address already; false then. `ON CONFLICT DO
/// NOTHING`, so the check and the insert cannot be split by a second writer.
pub fn insert(conn: &mut Db<'_>, row: &UserRow) -> QueryResult<bool> {
    let inserted = db_run!(conn: {
        diesel::insert_into(u::users).values(row).on_conflict_do_nothing().execute(conn)
    })?;
    Ok(inserted == 1)
}

pub fn by_email_key(conn: &mut Db<'_>, key: &str) -> QueryResult<Option<UserRow>> {
    db_run!(conn: { u::users.filter(u::email_key.eq(key)).select(UserRow::as_select()).first(conn).optional() })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<UserRow>> {
    db_run!(conn: { u::users.find(uuid).select(UserRow::as_select()).first(conn).optional() })
}

/// Gives the user with `key` a new password hash; false when there is none.
pub fn set_password(conn: &mut Db<'_>, key: &str, hash: &str, now: i64) -> QueryResult<bool> {
    let changed = db_run!(conn: {
        diesel::update(u::users.filter(u::email_key.eq(key)))
            .set((u::password_hash.eq(hash), u::updated.eq(now)))
            .execute(conn)
    })?;
    Ok(changed == 1)
}
