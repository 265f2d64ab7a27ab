//! Why a transaction stopped: an answer for the client, or a database error.
//! Transactions return it so a rule broken half-way rolls everything back.

use coffer_error::ApiError;
use coffer_store::StoreError;
use diesel::result::Error as DieselError;

pub enum Failure {
    Api(ApiError),
    Db(DieselError),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

impl From<DieselError> for Failure {
    fn from(e: DieselError) -> Self {
        Failure::Db(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Api(ApiError::from(e))
    }
}

impl From<Failure> for ApiError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Api(e) => e,
            Failure::Db(e) => ApiError::from(StoreError::from(e)),
        }
    }
}

/// For values that cannot fail in practice (a uuid Coffer wrote, JSON of its own types).
pub fn internal(e: impl std::fmt::Display) -> Failure {
    Failure::Api(ApiError::internal(e))
}

/// Tries of a write PostgreSQL ends to let a concurrent one through.
const CONTENDED_TRIES: u64 = 5;

/// A write (`attempt` makes one try), tried again when PostgreSQL ended its transaction to
/// let a concurrent one through (a deadlock, a serialization failure): the same work a
/// moment later commits. Each try waits a little longer, by a random amount, so that the
/// writes that collided do not collide again.
pub async fn retry_contended<T, Fut>(mut attempt: impl FnMut() -> Fut) -> Result<T, Failure>
where
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(Failure::Db(e)) if tries < CONTENDED_TRIES && coffer_store::is_contention(&e) => {
                let jitter = u64::from(uuid::Uuid::new_v4().as_bytes()[0]) % 20;
                tokio::time::sleep(std::time::Duration::from_millis(tries * 10 + jitter)).await;
                tries += 1;
            }
            other => return other,
        }
    }
}

/// [`coffer_store::Store::write`] (group commit), tried again on contention: a shared
/// transaction holds the rows of several requests at once, so two can wait on each other.
pub async fn write_contended<T, F>(store: &coffer_store::Store, effect: F) -> Result<T, Failure>
where
    T: Send + 'static,
    F: FnMut(&mut coffer_store::Db<'_>) -> Result<T, Failure> + Clone + Send + 'static,
{
    retry_contended(|| store.write(effect.clone())).await
}
