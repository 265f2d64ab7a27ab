//! Stored first responses to `Idempotency-Key` requests. A service that accepts the header
//! includes [`MIGRATIONS`] in its schema.

use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

use crate::{Db, Migrations, db_run};

/// The `idempotency_keys` table, the one place its DDL lives.
pub const MIGRATIONS: Migrations = Migrations {
    service: "idempotency",
    includes: &[],
    postgres: || POSTGRES,
    sqlite: || SQLITE,
};

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/idempotency/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/idempotency/sqlite");

diesel::table! {
    idempotency_keys (client_id, idempotency_key) {
        client_id -> Text,
        idempotency_key -> Text,
        request_hash -> Text,
        status -> Integer,
        response -> Text,
        created_ms -> BigInt,
    }
}

use idempotency_keys::dsl as k;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Insertable)]
#[diesel(table_name = idempotency_keys)]
pub struct StoredResponse {
    pub client_id: String,
    pub idempotency_key: String,
    pub request_hash: String,
    pub status: i32,
    pub response: String,
    pub created_ms: i64,
}

/// The stored response for `key`, if it is younger than `since_ms`.
pub fn find(
    db: &mut Db<'_>,
    client_id: &str,
    key: &str,
    since_ms: i64,
) -> QueryResult<Option<StoredResponse>> {
    db_run!(db: {
        k::idempotency_keys
            .filter(k::client_id.eq(client_id).and(k::idempotency_key.eq(key)).and(k::created_ms.ge(since_ms)))
            .first(db)
            .optional()
    })
}

/// Stores the response; call it in the transaction of the effect. An older entry under the
/// same key (past the replay window) is replaced; a concurrent one makes this fail with a
/// unique violation, and the transaction with it.
pub fn save(db: &mut Db<'_>, row: &StoredResponse, since_ms: i64) -> QueryResult<()> {
    db_run!(db: {
        diesel::delete(
            k::idempotency_keys.filter(
                k::client_id.eq(&row.client_id).and(k::idempotency_key.eq(&row.idempotency_key)).and(k::created_ms.lt(since_ms)),
            ),
        )
        .execute(db)?;
        diesel::insert_into(k::idempotency_keys).values(row).execute(db).map(drop)
    })
}

/// Status of a key whose effect began but whose response is not known yet (a call to a
/// provider between two transactions); its response holds what the effect recorded.
pub const IN_PROGRESS: i32 = 0;

/// Stores the final response of a key saved [`IN_PROGRESS`]; call it in the transaction
/// that records the outcome.
pub fn complete(
    db: &mut Db<'_>,
    client_id: &str,
    key: &str,
    status: i32,
    response: &str,
) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(
            k::idempotency_keys.filter(
                k::client_id.eq(client_id).and(k::idempotency_key.eq(key)).and(k::status.eq(IN_PROGRESS)),
            ),
        )
        .set((k::status.eq(status), k::response.eq(response)))
        .execute(db)
        .map(drop)
    })
}

/// Gives back a key saved [`IN_PROGRESS`] whose effect recorded nothing, so the client
/// may use it again.
pub fn release(db: &mut Db<'_>, client_id: &str, key: &str) -> QueryResult<()> {
    db_run!(db: {
        diesel::delete(
            k::idempotency_keys.filter(
                k::client_id.eq(client_id).and(k::idempotency_key.eq(key)).and(k::status.eq(IN_PROGRESS)),
            ),
        )
        .execute(db)
        .map(drop)
    })
}

/// Gives back a key held [`IN_PROGRESS`] since before `before_ms`: its request stopped
/// without finishing (a crash), for effects that are safe to run again. True when one was.
pub fn release_stale(
    db: &mut Db<'_>,
    client_id: &str,
    key: &str,
    before_ms: i64,
) -> QueryResult<bool> {
    let n = db_run!(db: {
        diesel::delete(
            k::idempotency_keys.filter(
                k::client_id.eq(client_id)
                    .and(k::idempotency_key.eq(key))
                    .and(k::status.eq(IN_PROGRESS))
                    .and(k::created_ms.lt(before_ms)),
            ),
        )
        .execute(db)
    })?;
    Ok(n == 1)
}

/// Up to `limit` stored answers after `client` and `key` (both empty at first), in
/// that order, whose response `sealed` matches and `current` does not (both `LIKE`
/// patterns escaped with `\`): those sealed under a master key other than the current
/// one. (client, key, response) each.
pub fn sealed_not_under(
    db: &mut Db<'_>,
    sealed: &str,
    current: &str,
    (client, key): (&str, &str),
    limit: i64,
) -> QueryResult<Vec<(String, String, String)>> {
    db_run!(db: {
        k::idempotency_keys
            .filter(k::client_id.gt(client).or(k::client_id.eq(client).and(k::idempotency_key.gt(key))))
            .filter(k::response.like(sealed).escape('\\'))
            .filter(k::response.not_like(current).escape('\\'))
            .order((k::client_id, k::idempotency_key))
            .limit(limit)
            .select((k::client_id, k::idempotency_key, k::response))
            .load(db)
    })
}

/// Writes `now` over the stored response of `key` if it is still `was`; the rows changed.
pub fn replace_response(
    db: &mut Db<'_>,
    (client_id, key): (&str, &str),
    was: &str,
    now: &str,
) -> QueryResult<usize> {
    db_run!(db: {
        diesel::update(
            k::idempotency_keys.filter(
                k::client_id.eq(client_id).and(k::idempotency_key.eq(key)).and(k::response.eq(was)),
            ),
        )
        .set(k::response.eq(now))
        .execute(db)
    })
}

/// Deletes the stored response of `key` if it is still `was`; the rows deleted.
pub fn delete_response(
    db: &mut Db<'_>,
    (client_id, key): (&str, &str),
    was: &str,
) -> QueryResult<usize> {
    db_run!(db: {
        diesel::delete(
            k::idempotency_keys.filter(
                k::client_id.eq(client_id).and(k::idempotency_key.eq(key)).and(k::response.eq(was)),
            ),
        )
        .execute(db)
    })
}
