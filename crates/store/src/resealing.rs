//! Sealing again, at a service's start, what a table keeps sealed under a master key that
//! is no longer current (docs/decisions/secrets.md, "At start"): once every service has
//! started with the new current key, nothing is left that only the old key opens, and the
//! old key may be dropped. One pass serves every such table; the table says how its rows
//! are found, what each becomes and how it is written ([`SealedTable`]).

use std::fmt::Display;

use coffer_secrets::{ResealError, Secrets};
use diesel::connection::SimpleConnection;
use diesel::{QueryResult, RunQueryDsl};

use crate::{Db, Store, StoreError};

/// Rows read and written at a time: each batch is one short transaction, so a start with
/// many rows to seal again never holds the write lock for long.
const BATCH: i64 = 500;

/// What becomes of a row the pass found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate<V> {
    /// Nothing to do (its values are sealed under the current key already).
    Keep,
    Replace(V),
    /// For a table of caches, whose rows are worth less than a start (the table says why).
    Delete,
}

impl<V> Fate<V> {
    /// Replace with `now` when there is something new, else keep.
    pub fn of(now: Option<V>) -> Self {
        now.map_or(Fate::Keep, Fate::Replace)
    }
}

/// One column's value sealed again under the current key in `context`
/// ([`Secrets::reseal`]), or None when the current key sealed it already.
pub fn column(
    secrets: &Secrets,
    column: &'static str,
    context: &str,
    value: &str,
) -> Result<Option<String>, Unopened> {
    secrets
        .reseal(context, value)
        .map_err(|source| Unopened { column, source })
}

/// A value of a row that cannot be sealed again, and which of the row's columns held it.
#[derive(Debug, thiserror::Error)]
#[error("{column}: {source}")]
pub struct Unopened {
    pub column: &'static str,
    #[source]
    pub source: ResealError,
}

/// Why the pass stopped the start.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(
        "{column} of {table} row {row} cannot be sealed again under the current master key \
         ({source}); is the master key that sealed it in secrets.keys?"
    )]
    Unopened {
        table: &'static str,
        row: String,
        column: &'static str,
        #[source]
        source: ResealError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Which rows [`SealedTable::stale`] answers: up to `limit` after `after` (the key's
/// default at first), in key order, with a value `current` does not match.
pub struct Batch<'a, K> {
    /// A `LIKE` pattern, escaped with `\`, of every value sealed under the current master
    /// key.
    pub current: &'a str,
    pub after: &'a K,
    pub limit: i64,
}

/// A table with columns sealed under the master keys.
pub trait SealedTable: 'static {
    /// As messages and the log name it.
    const TABLE: &'static str;
    /// What names a row; rows are gone through in its order, from its default.
    type Key: Clone + Default + Display + Send + Sync + 'static;
    /// A row's sealed columns, as stored.
    type Values: Send + 'static;

    /// The rows of `batch`, each with its sealed columns.
    fn stale(db: &mut Db<'_>, batch: &Batch<'_, Self::Key>) -> QueryResult<Found<Self>>;

    /// What the row becomes under the current master key.
    fn plan(
        secrets: &Secrets,
        key: &Self::Key,
        was: &Self::Values,
    ) -> Result<Fate<Self::Values>, Unopened>;

    /// Writes `now` over the row if it still holds `was` (another replica starting at the
    /// same time may have been first); the rows changed.
    fn replace(
        db: &mut Db<'_>,
        key: &Self::Key,
        was: &Self::Values,
        now: &Self::Values,
    ) -> QueryResult<usize>;

    /// Deletes the row if it still holds `was`; needed only where `plan` answers Delete.
    fn delete(db: &mut Db<'_>, key: &Self::Key, was: &Self::Values) -> QueryResult<usize> {
        let _ = (db, key, was);
        Ok(0)
    }
}

/// What a pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resealed {
    pub replaced: usize,
    pub deleted: usize,
}

/// Seals again every value of `T` that the current master key did not seal, a batch at a
/// time. A value no configured key opens stops the pass, naming its row, unless the table
/// deletes such rows.
pub async fn reseal<T: SealedTable>(
    store: &Store,
    secrets: &Secrets,
) -> Result<Resealed, PassError> {
    let current = like_prefix(&secrets.current_prefix());
    let (mut after, mut done) = (T::Key::default(), Resealed::default());
    loop {
        let (pattern, from) = (current.clone(), after.clone());
        let found = store
            .query(move |db| {
                let batch = Batch {
                    current: &pattern,
                    after: &from,
                    limit: BATCH,
                };
                T::stale(db, &batch)
            })
            .await?;
        let Some((last, _)) = found.last() else {
            break;
        };
        after = last.clone();
        let plan = found
            .into_iter()
            .map(|(key, was)| match T::plan(secrets, &key, &was) {
                Ok(fate) => Ok((key, was, fate)),
                Err(e) => Err(PassError::Unopened {
                    table: T::TABLE,
                    row: key.to_string(),
                    column: e.column,
                    source: e.source,
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let batch = store
            .query(move |db| scrubbed(db, |tx| write::<T>(tx, &plan)))
            .await?;
        done.replaced += batch.replaced;
        done.deleted += batch.deleted;
    }
    if done != Resealed::default() {
        tracing::info!(
            table = T::TABLE,
            replaced = done.replaced,
            deleted = done.deleted,
            master_key = secrets.current_kid(),
            "stored secrets sealed under the current master key"
        );
    }
    Ok(done)
}

/// Rows [`SealedTable::stale`] found, each with its sealed columns.
pub type Found<T> = Vec<(<T as SealedTable>::Key, <T as SealedTable>::Values)>;

type Planned<T> = (
    <T as SealedTable>::Key,
    <T as SealedTable>::Values,
    Fate<<T as SealedTable>::Values>,
);

fn write<T: SealedTable>(tx: &mut Db<'_>, plan: &[Planned<T>]) -> QueryResult<Resealed> {
    let mut done = Resealed::default();
    for (key, was, fate) in plan {
        match fate {
            Fate::Keep => {}
            Fate::Replace(now) => done.replaced += T::replace(tx, key, was, now)?,
            Fate::Delete => done.deleted += T::delete(tx, key, was)?,
        }
    }
    Ok(done)
}

/// Runs `write` in a write transaction that replaces or deletes sealed values. On SQLite
/// what it replaced must not linger in the file: secure_delete zeroes the space the old
/// values held, and a truncating checkpoint empties the write-ahead log of earlier page
/// images. PostgreSQL keeps old row versions until VACUUM (docs/decisions/secrets.md).
pub fn scrubbed<T>(
    conn: &mut Db<'_>,
    write: impl FnOnce(&mut Db<'_>) -> QueryResult<T>,
) -> QueryResult<T> {
    if let Db::Sqlite(c) = conn {
        c.batch_execute("PRAGMA secure_delete = ON")?;
    }
    let done = conn.write_tx(write)?;
    if let Db::Sqlite(c) = conn {
        // A reader still in a snapshot (another connection of the pool) keeps the old
        // pages in the WAL and the checkpoint answers busy; asked again shortly, it gets
        // through, bounded so a start never waits on a reader for long.
        for _ in 0..CHECKPOINT_TRIES {
            let answer: Checkpoint =
                diesel::sql_query("PRAGMA wal_checkpoint(TRUNCATE)").get_result(&mut **c)?;
            if answer.busy == 0 {
                break;
            }
            std::thread::sleep(CHECKPOINT_PAUSE);
        }
    }
    Ok(done)
}

/// How often, and how far apart, the WAL is asked to give up the pages a pass overwrote.
const CHECKPOINT_TRIES: usize = 50;
const CHECKPOINT_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// `PRAGMA wal_checkpoint`'s answer: 1 in `busy` when a reader kept it from finishing.
#[derive(diesel::QueryableByName)]
struct Checkpoint {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    busy: i32,
}

/// A `LIKE` pattern, escaped with `\`, of every text that begins with `prefix` (a key id
/// may hold `_`, which `LIKE` would take for any character).
pub fn like_prefix(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 2);
    for c in prefix.chars() {
        if matches!(c, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_matches_itself_only() {
        assert_eq!(like_prefix("v1.k_1."), "v1.k\\_1.%");
        assert_eq!(like_prefix("a%b\\"), "a\\%b\\\\%");
    }
}
