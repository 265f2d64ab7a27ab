//! A pool of connections of one backend: a Store's own, and the searches' beside it
//! (searches.rs). Below both the Store and what runs on its connections (group commit,
//! searches), which take a pool and not the Store.

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

impl Pools {
    /// A pool of `size` connections to `target`, connecting lazily.
    pub(crate) fn of(target: &Target, size: u32, checkout: Duration) -> Self {
        match target {
            Target::Postgres(url) => Pools::Pg(
                Pool::builder()
                    .max_size(size)
                    .min_idle(Some(0))
                    .connection_timeout(checkout)
                    .build_unchecked(ConnectionManager::new(url.clone())),
            ),
            Target::Sqlite(path) => Pools::Sqlite(
                Pool::builder()
                    .max_size(size)
                    .min_idle(Some(0))
                    .connection_timeout(checkout)
                    .connection_customizer(Box::new(crate::sqlite::SqlitePragmas))
                    .build_unchecked(ConnectionManager::new(path.clone())),
            ),
        }
    }

    pub(crate) fn get(&self) -> Result<Conn, StoreError> {
        Ok(match self {
            Pools::Pg(pool) => Conn::Pg(pool.get()?),
            Pools::Sqlite(pool) => Conn::Sqlite(pool.get()?),
        })
    }
}
