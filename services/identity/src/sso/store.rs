use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use crate::schema::authorization_codes::dsl as a;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::authorization_codes)]
pub struct CodeRow {
    pub code_sha256: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub user_uuid: String,
    pub scope: String,
    pub nonce: Option<String>,
    pub code_challenge: Option<String>,
    pub auth_time: i64,
    pub expires_at: i64,
    pub redeemed_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

pub fn insert(conn: &mut Db<'_>, row: &CodeRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(a::authorization_codes).values(row).execute(conn).map(drop) })
}

/// What redeeming a code found.
pub enum Redeemed {
    /// The code was unused: it is now marked redeemed at `now`.
    First(Box<CodeRow>),
    /// It was redeemed before; now it is also marked revoked.
    Again,
    Unknown,
}

/// Marks the code redeemed, once: of two exchanges racing, one sees `First` and the other
/// `Again`, decided by the conditional update.
pub fn redeem(conn: &mut Db<'_>, digest: &str, now: i64) -> QueryResult<Redeemed> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            let Some(row) = a::authorization_codes
                .find(digest)
                .select(CodeRow::as_select())
                .first(conn)
                .optional()?
            else {
                return Ok(Redeemed::Unknown);
            };
            let taken = diesel::update(a::authorization_codes.find(digest).filter(a::redeemed_at.is_null()))
                .set(a::redeemed_at.eq(now))
                .execute(conn)?;
            if taken == 1 {
                return Ok(Redeemed::First(Box::new(row)));
            }
            diesel::update(a::authorization_codes.find(digest).filter(a::revoked_at.is_null()))
                .set(a::revoked_at.eq(now))
                .execute(conn)?;
            Ok(Redeemed::Again)
        })
    })
}

/// Forgets codes that expired before `before` (a day after, so a replay still finds a
/// code it can refuse by name in the logs).
pub fn purge(conn: &mut Db<'_>, before: i64) -> QueryResult<usize> {
    db_run!(conn: { diesel::delete(a::authorization_codes.filter(a::expires_at.lt(before))).execute(conn) })
}
