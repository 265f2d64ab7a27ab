use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::result::Error as DieselError;

use crate::group_commit::{Durability, GroupCommit};
use crate::pools::{Pools, Use};
use crate::searches::{SearchOptions, Searches};
use crate::url::{self, Target};
use crate::{Backend, Conn, Db, Migrations, StoreError};

#[derive(Debug, Clone)]
pub struct PoolOptions {
    pub max_connections: u32,
    /// Connections of the readers' pool ([`Store::read`]), beside `max_connections`.
    pub read_connections: u32,
    /// How long a caller waits for a connection before it is answered 503.
    pub connect_timeout: Duration,
    /// Searches' own connections and bounds (searches.rs).
    pub searches: SearchOptions,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            read_connections: 8,
            connect_timeout: Duration::from_secs(5),
            searches: SearchOptions::default(),
        }
    }
}

/// A service's database: a connection pool of one backend. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    pools: Pools,
    /// Connections for reads alone (`Store::read`): never held by a writer.
    readers: Pools,
    /// A pool of its own for searches, and their bounds per tenant (searches.rs).
    searches: Searches,
    /// Started by the first [`Store::write`], on that caller's runtime unless
    /// [`Store::with_writers_on`] named one.
    group: Arc<Mutex<Option<GroupCommit>>>,
    /// [`Store::write_unflushed`]'s, likewise.
    unflushed: Arc<Mutex<Option<GroupCommit>>>,
    /// While a clone of the store lives, so does its SQLite checkpoint thread.
    _alive: Arc<()>,
    /// SQLite: where this process's writers of the database queue (write_tx.rs).
    writers: Option<crate::write_tx::WriteQueue>,
    /// How long work waits for a connection before it is refused.
    connect_timeout: Duration,
    /// Where the writers start ([`Store::with_writers_on`]).
    writers_runtime: Option<tokio::runtime::Handle>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend())
            .finish()
    }
}

impl Store {
    /// Opens a pool for `url`. The pool connects lazily, so a service can start (and report
    /// not-ready) while its database is still coming up.
    pub fn connect(url: &str, options: &PoolOptions) -> Result<Self, StoreError> {
        let target = url::parse(url)?;
        if let Target::Sqlite(path) = &target {
            crate::sqlite_file::prepare(path)?;
        }
        let pools = Pools::of(
            &target,
            options.max_connections,
            options.connect_timeout,
            Use::Any,
        );
        let readers = Pools::of(
            &target,
            options.read_connections,
            options.connect_timeout,
            Use::Reads,
        );
        let searches = Searches::new(
            Pools::of(
                &target,
                options.searches.connections,
                options.connect_timeout,
                Use::Any,
            ),
            &options.searches,
        );
        let alive = Arc::new(());
        if let Pools::Sqlite(pool) = &pools {
            crate::sqlite::checkpoint_forever(pool.clone(), Arc::downgrade(&alive));
        }
        let writers = matches!(pools, Pools::Sqlite(_)).then(crate::write_tx::WriteQueue::default);
        Ok(Self {
            pools,
            readers,
            searches,
            group: Arc::new(Mutex::new(None)),
            unflushed: Arc::new(Mutex::new(None)),
            _alive: alive,
            writers,
            connect_timeout: options.connect_timeout,
            writers_runtime: None,
        })
    }

    /// Starts the writers of [`Store::write`] and [`Store::write_unflushed`] on `runtime`
    /// whoever writes first, instead of on the first writer's runtime: `coffer dev` keeps
    /// them on its main runtime, whose threads give way to the HTTP workers' (coffer_http's
    /// `threads::runtime_giving_way`). `runtime` must outlive the store's writes.
    #[must_use]
    pub fn with_writers_on(mut self, runtime: tokio::runtime::Handle) -> Self {
        self.writers_runtime = Some(runtime);
        self
    }

    /// How long work waits for a connection before it is refused (`PoolOptions`): what
    /// else queues for the database waits no longer (lookups.rs).
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    pub fn backend(&self) -> Backend {
        match self.pools {
            Pools::Pg(_) => Backend::Postgres,
            Pools::Sqlite(_) => Backend::Sqlite,
        }
    }

    /// Checks out a connection on the current thread. Only for blocking contexts (the
    /// admin CLI, migrations, tests); request paths use [`Store::run`].
    /// Writes on SQLite made through it do not queue with the process's other writers
    /// unless the caller names the queue (`Store::run` does).
    pub fn get(&self) -> Result<Conn, StoreError> {
        self.pools.get()
    }

    /// Runs blocking diesel work on tokio's blocking pool, never on an actix worker thread.
    pub async fn run<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.run_here(f))
            .await
            .map_err(|_| StoreError::Cancelled)?
    }

    /// [`Store::run`] on the calling thread, which must be one that may block (never an
    /// async worker's): for work that a blocking thread inside another store's `run`
    /// waits for while it holds its own database's write lock. Such work must not need a
    /// second blocking thread of the same runtime, since the threads it would wait for may
    /// be the ones queued behind that lock (the relay's hand-over to the in-process bus).
    pub fn run_here<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>) -> Result<T, E>,
        E: From<StoreError>,
    {
        let _queue = crate::write_tx::working_on(self.writers.clone());
        let mut conn = self.get()?;
        f(&mut conn.db())
    }

    /// Runs `effect` in a write transaction, which it may share with writes made at the same
    /// time (group commit; see group_commit.rs). `effect` may run more than once and must
    /// only touch the database.
    pub async fn write<T, E, F>(&self, effect: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<diesel::result::Error> + From<StoreError> + Send + 'static,
        F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
    {
        self.writers(&self.group, Durability::Flushed)
            .write(effect)
            .await
    }

    /// [`Store::write`] for records that stand in for another party's (the test provider's
    /// book of what it was asked): on PostgreSQL they share transactions of their own that
    /// do not wait for the log flush, so keeping them costs Coffer's database little. A
    /// crash of the database server may lose the last of them; a crash of Coffer loses
    /// nothing committed. On SQLite this is [`Store::write`]: one queue for the write lock.
    pub async fn write_unflushed<T, E, F>(&self, effect: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<diesel::result::Error> + From<StoreError> + Send + 'static,
        F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
    {
        if self.backend() == Backend::Sqlite {
            return self.write(effect).await;
        }
        self.writers(&self.unflushed, Durability::Unflushed)
            .write(effect)
            .await
    }

    /// The writers of `slot`, started on the caller's runtime when there are none or when
    /// those there went away with the runtime they ran on: a store may outlive the runtime
    /// of its first write (an HTTP server's worker that stopped, a restarted module), and
    /// without this every later write would fail as cancelled.
    fn writers(&self, slot: &Mutex<Option<GroupCommit>>, durability: Durability) -> GroupCommit {
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        match &*slot {
            Some(running) if !running.stopped() => running.clone(),
            _ => {
                let started = GroupCommit::start(
                    self.pools.clone(),
                    self.writers.clone(),
                    durability,
                    self.writers_runtime.as_ref(),
                );
                *slot = Some(started.clone());
                started
            }
        }
    }

    /// Runs the search `f` for `tenant` (whatever names whose bound it counts against) on
    /// the searches' pool, on one read-only snapshot. `f` gets the instant its budget ends
    /// and checks it between its steps; on PostgreSQL a statement running past the budget
    /// is stopped by the server too. A tenant already running its bound of searches waits
    /// for a turn within the budget, and is refused at once ([`StoreError::SearchesBusy`])
    /// when its line is full too. One that waited its whole budget without a turn never
    /// ran, and is refused the same way ([`StoreError::SearchesBusy`]); one whose budget
    /// ends once it holds a turn (waiting for a connection or running) ends with
    /// [`StoreError::SearchTimedOut`].
    pub async fn search<T, E, F>(&self, tenant: &str, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>, Instant) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + From<DieselError> + Send + 'static,
    {
        self.searches.run(tenant, f).await
    }

    /// The budget of one search, for messages.
    pub fn search_budget(&self) -> Duration {
        self.searches.budget()
    }

    /// Runs read-only work on the readers' pool, which writers never hold a connection
    /// of, so a read never waits behind them for one. Its connections are not tried with
    /// a round trip at checkout (half of a one-statement read's trips): a connection the
    /// server closed (a restart) fails the read, is dropped, and the read runs again on
    /// another, as many times as the pool has connections. On SQLite the connections
    /// refuse writes.
    ///
    /// Only lookups by key belong here: PostgreSQL's readers keep one generic plan per
    /// statement (pools.rs, `PgSession`), which is the best plan for a key whatever its
    /// value but can be a poor one for a range or a search, whose best plan depends on
    /// the values; those go through [`Store::search`] or [`Store::query`].
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        F: Fn(&mut Db<'_>) -> diesel::QueryResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut closed = 0;
            loop {
                let mut conn = store.readers.get()?;
                match f(&mut conn.db()) {
                    Err(e) if crate::error::is_closed(&e) => {
                        // Never handed out again, whether or not the read is.
                        conn.mark_broken();
                        if closed >= store.readers.size() {
                            return Err(e.into());
                        }
                        closed += 1;
                    }
                    other => return other.map_err(StoreError::from),
                }
            }
        })
        .await
        .map_err(|_| StoreError::Cancelled)?
    }

    /// [`Store::run`] for store functions, which return diesel's `QueryResult`.
    pub async fn query<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        F: FnOnce(&mut Db<'_>) -> diesel::QueryResult<T> + Send + 'static,
        T: Send + 'static,
    {
        self.run(move |conn| f(conn).map_err(StoreError::from))
            .await
    }

    /// Applies pending migrations; returns how many ran.
    pub fn migrate(&self, migrations: &Migrations) -> Result<usize, StoreError> {
        let mut conn = self.get()?;
        crate::migrate::run(&mut conn, migrations)
    }

    /// How many migrations are not applied yet.
    pub fn pending_migrations(&self, migrations: &Migrations) -> Result<usize, StoreError> {
        let mut conn = self.get()?;
        crate::migrate::pending(&mut conn, migrations)
    }

    /// A round trip to the database, for readiness checks. On SQLite a read always
    /// succeeds beside a writer, so readiness there asks for the write lock itself and
    /// gives up after a second: a service whose writes would wait out their timeout is
    /// not ready, whatever its reads say.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.run(|db| match db {
            Db::Pg(pg) => pg.batch_execute("SELECT 1").map_err(StoreError::from),
            Db::Sqlite(sqlite) => {
                sqlite.batch_execute("PRAGMA busy_timeout = 1000")?;
                let taken = sqlite.batch_execute("BEGIN IMMEDIATE; ROLLBACK;");
                sqlite.batch_execute(crate::sqlite::BUSY_TIMEOUT)?;
                taken.map_err(StoreError::from)
            }
        })
        .await
    }
}
