//! Searches run apart from the rest of a service's work: on a pool of their own, a few at a
//! time per tenant (the rest waiting in the tenant's own line, search_lines.rs), within a
//! time budget that counts the wait. A search may ask for 10,000 hits with many
//! aggregations (SPEC.md allows it), and ten of those on the service's pool would hold
//! every connection for as long as they take, while other tenants' reads and the service's
//! own workers waited for one (docs/configuration.md, "Searches").

use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::result::Error as DieselError;

use crate::pools::Pools;
use crate::search_lines::Lines;
use crate::{Db, StoreError};

#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Connections of the searches' pool, beside the service's own.
    pub connections: u32,
    /// Searches one tenant may have running at once; more wait for a turn, four per
    /// running one, and one more than those is refused (429).
    pub per_tenant: usize,
    /// How long one search may take, its wait for a turn included. One that waited it
    /// all without a turn is refused (429); one that held a turn and ran past it is
    /// stopped (503).
    pub budget: Duration,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            connections: 4,
            per_tenant: 2,
            budget: Duration::from_secs(10),
        }
    }
}

/// The searches' pool, and how many searches each tenant has running.
#[derive(Clone)]
pub(crate) struct Searches {
    pool: Pools,
    lines: Lines,
    budget: Duration,
}

impl Searches {
    pub(crate) fn new(pool: Pools, options: &SearchOptions) -> Self {
        Self {
            pool,
            lines: Lines::new(options.per_tenant),
            budget: options.budget,
        }
    }
}

/// PostgreSQL's word for a statement its `statement_timeout` stopped (SQLSTATE 57014).
fn is_statement_timeout(e: &DieselError) -> bool {
    matches!(e, DieselError::DatabaseError(_, info)
        if info.message().contains("statement timeout"))
}

impl Searches {
    /// [`crate::Store::search`]: `f` for `tenant` on this pool, within the budget.
    pub(crate) async fn run<T, E, F>(&self, tenant: &str, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Db<'_>, Instant) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + From<DieselError> + Send + 'static,
    {
        let searches = self.clone();
        let deadline = Instant::now() + searches.budget;
        let turn = searches.lines.take(tenant, deadline.into()).await?;
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let mut conn = searches.pool.get()?;
            if Instant::now() >= deadline {
                return Err(StoreError::SearchTimedOut.into());
            }
            let mut db = conn.db();
            // What the wait left of the budget. PostgreSQL reads 0 as no timeout at all:
            // under a millisecond is one.
            let budget_ms = deadline
                .saturating_duration_since(Instant::now())
                .as_millis()
                .max(1);
            db.snapshot(|db| {
                // One search, one of the database's cores: with parallel workers a scan
                // took three on a two-core server, and another tenant's requests waited
                // for one (docs/decisions/fairness.md). The per-tenant bound then bounds
                // a tenant's share of the cores too.
                if let Db::Pg(pg) = db {
                    pg.batch_execute(&format!(
                        "SET LOCAL statement_timeout = {budget_ms}; \
                         SET LOCAL max_parallel_workers_per_gather = 0"
                    ))?;
                }
                f(db, deadline)
            })
        })
        .await
        .map_err(|_| StoreError::Cancelled)?
    }

    /// The budget of one search.
    pub(crate) fn budget(&self) -> Duration {
        self.budget
    }
}

impl StoreError {
    /// Whether a search ran out of its budget, by its own count or PostgreSQL's.
    pub fn is_search_timeout(&self) -> bool {
        match self {
            StoreError::SearchTimedOut => true,
            StoreError::Query(e) => is_statement_timeout(e),
            _ => false,
        }
    }
}
