//! A pool of connections of one backend: a Store's own, and the searches' beside it
//! (searches.rs). Below both the Store and what runs on its connections (group commit,
//! searches), which take a pool and not the Store.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use diesel::r2d2::{ConnectionManager, Pool};
use diesel::{PgConnection, SqliteConnection};

use crate::url::Target;
use crate::{Conn, StoreError};

#[derive(Clone)]
pub(crate) enum Pools {
    Pg(Pool<ConnectionManager<PgConnection>>),
    Sqlite(Pool<ConnectionManager<SqliteConnection>>),
}

/// The threads every pool of the process runs its housekeeping on (opening connections,
/// closing idle ones). r2d2 starts three per pool by default: ninety threads in `coffer
/// dev`, whose many stores each have three pools. Four, so that a connection slow to open
/// (a server restarting) does not hold up every other pool's.
fn housekeeping() -> Arc<scheduled_thread_pool::ScheduledThreadPool> {
    static SHARED: OnceLock<Arc<scheduled_thread_pool::ScheduledThreadPool>> = OnceLock::new();
    Arc::clone(SHARED.get_or_init(|| {
        Arc::new(
            scheduled_thread_pool::ScheduledThreadPool::builder()
                .num_threads(4)
                .thread_name_pattern("coffer-pools")
                .build(),
        )
    }))
}

/// What a pool's connections are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// Anything, each connection tried with a round trip as it is checked out.
    Any,
    /// Reads only ([`crate::Store::read`]): not tried at checkout (a closed one is found
    /// by the read itself, which then takes another), and on SQLite refusing writes.
    Reads,
}

/// A PostgreSQL connection of the readers' pool refuses writes, as SQLite's does
/// (sqlite.rs): a read may run again on another connection, which only a read may. It also
/// keeps one plan per prepared statement: its reads are lookups by key (lookups.rs), whose
/// best plan is the same whatever the key, and PostgreSQL would otherwise plan a statement
/// with an array of keys afresh on every run (planning was three in five of its time on a
/// batch of reads; docs/benchmarks.md, issue 34).
#[derive(Debug, Clone, Copy)]
struct PgSession {
    read_only: bool,
}

impl diesel::r2d2::CustomizeConnection<PgConnection, diesel::r2d2::Error> for PgSession {
    fn on_acquire(&self, conn: &mut PgConnection) -> Result<(), diesel::r2d2::Error> {
        use diesel::connection::SimpleConnection;
        if self.read_only {
            conn.batch_execute(
                "SET default_transaction_read_only = on; SET plan_cache_mode = force_generic_plan",
            )
            .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

impl Pools {
    /// A pool of `size` connections to `target`, connecting lazily.
    pub(crate) fn of(target: &Target, size: u32, checkout: Duration, used: Use) -> Self {
        match target {
            Target::Postgres(url) => Pools::Pg(
                Pool::builder()
                    .thread_pool(housekeeping())
                    .test_on_check_out(used == Use::Any)
                    .connection_customizer(Box::new(PgSession {
                        read_only: used == Use::Reads,
                    }))
                    .max_size(size)
                    .min_idle(Some(0))
                    .connection_timeout(checkout)
                    .build_unchecked(ConnectionManager::new(url.clone())),
            ),
            Target::Sqlite(path) => Pools::Sqlite(
                Pool::builder()
                    .thread_pool(housekeeping())
                    .test_on_check_out(used == Use::Any)
                    .max_size(size)
                    .min_idle(Some(0))
                    .connection_timeout(checkout)
                    .connection_customizer(Box::new(crate::sqlite::SqlitePragmas {
                        query_only: used == Use::Reads,
                    }))
                    .build_unchecked(ConnectionManager::new(path.clone())),
            ),
        }
    }

    /// The most connections the pool holds.
    pub(crate) fn size(&self) -> u32 {
        match self {
            Pools::Pg(pool) => pool.max_size(),
            Pools::Sqlite(pool) => pool.max_size(),
        }
    }

    pub(crate) fn get(&self) -> Result<Conn, StoreError> {
        Ok(match self {
            Pools::Pg(pool) => Conn::Pg(pool.get()?),
            Pools::Sqlite(pool) => Conn::Sqlite(pool.get()?),
        })
    }
}
