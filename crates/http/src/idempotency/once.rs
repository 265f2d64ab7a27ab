//! The common way: the effect and its answer commit in one transaction, so an effect
//! without its stored answer (or the reverse) cannot exist, and a repeat is given the
//! stored answer.

use actix_web::{HttpRequest, HttpResponse};
use coffer_error::ApiError;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::idempotency::{self, StoredResponse};
use coffer_store::{Db, Store};
use diesel::result::{DatabaseErrorKind, Error as DieselError};

use super::answers::{Keeping, replay};
use super::key::{IdempotencyKey, request_hash};
use super::transaction_failure::Failure;
use super::{Outcome, WINDOW_MS};

/// One create under an optional Idempotency-Key, as the route reads it: who asks (keys are
/// each client's own), the key, and what makes a repeat "the same request". The command
/// runs its transaction through [`Once::run`] or [`Once::run_sealed`].
pub struct Once {
    pub client: String,
    pub key: IdempotencyKey,
    /// The request's method, path and body, digested: a key reused for another request is
    /// refused.
    pub hash: String,
}

impl Once {
    pub fn of(
        caller: &coffer_auth::Caller,
        key: IdempotencyKey,
        req: &HttpRequest,
        body: &serde_json::Value,
    ) -> Self {
        Once {
            client: caller.client_id().to_owned(),
            key,
            hash: request_hash(req, body),
        }
    }

    /// [`run`] under this request's key.
    pub async fn run<F, E>(
        self,
        store: &Store,
        clock: &dyn Clock,
        effect: F,
    ) -> Result<HttpResponse, ApiError>
    where
        F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
        E: From<DieselError> + Into<ApiError> + Send + 'static,
    {
        run(store, clock, &self.client, self.key, self.hash, effect).await
    }

    /// [`run_sealed`] under this request's key.
    pub async fn run_sealed<F, E>(
        self,
        store: &Store,
        clock: &dyn Clock,
        secrets: &Secrets,
        effect: F,
    ) -> Result<HttpResponse, ApiError>
    where
        F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
        E: From<DieselError> + Into<ApiError> + Send + 'static,
    {
        run_sealed(
            store,
            clock,
            secrets,
            &self.client,
            self.key,
            self.hash,
            effect,
        )
        .await
    }
}

/// Runs `effect` in a write transaction, storing its outcome under the key when there is one,
/// or replays the stored outcome of an earlier request with the same key. The transaction
/// may be shared with other writes ([`Store::write`]), so `effect` may run more than once.
pub async fn run<F, E>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    run_keeping(store, clock, Keeping::Plain, client_id, key, hash, effect).await
}

/// [`run`] for an operation whose response carries a secret the service keeps sealed: the
/// stored response is sealed under `secrets` too.
pub async fn run_sealed<F, E>(
    store: &Store,
    clock: &dyn Clock,
    secrets: &Secrets,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let keeping = Keeping::Sealed(secrets.clone());
    run_keeping(store, clock, keeping, client_id, key, hash, effect).await
}

async fn run_keeping<F, E>(
    store: &Store,
    clock: &dyn Clock,
    keeping: Keeping,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    mut effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let now = clock.unix_ms();
    let since = now - WINDOW_MS;
    let Some(key) = key.0 else {
        let (status, body) = store
            .write(move |db| effect(db).map_err(Failure::Effect))
            .await
            .map_err(Failure::into_api)?;
        return Ok(HttpResponse::build(status).json(body));
    };
    let (client, k) = (client_id.to_owned(), key.clone());
    if let Some(stored) = store
        .query(move |db| idempotency::find(db, &client, &k, since))
        .await?
    {
        return replay(&stored, &hash, &keeping);
    }
    let (client, k, h) = (client_id.to_owned(), key.clone(), hash.clone());
    let sealing = keeping.clone();
    let result = store
        .write(move |tx| {
            let (status, body) = effect(tx).map_err(Failure::Effect)?;
            let (request_hash, response) = sealing
                .store((&client, &k), &h, &body)
                .map_err(Failure::Sealing)?;
            let row = StoredResponse {
                client_id: client.clone(),
                idempotency_key: k.clone(),
                request_hash,
                status: i32::from(status.as_u16()),
                response,
                created_ms: now,
            };
            idempotency::save(tx, &row, since).map_err(Failure::Store)?;
            Ok((status, body))
        })
        .await;
    match result {
        Ok((status, body)) => Ok(HttpResponse::build(status).json(body)),
        // Another request with this key committed first: answer as it did.
        Err(Failure::Store(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _))) => {
            let client = client_id.to_owned();
            match store
                .query(move |db| idempotency::find(db, &client, &key, since))
                .await?
            {
                Some(stored) => replay(&stored, &hash, &keeping),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            }
        }
        // The effect refused because another request with this key made the same thing
        // meanwhile (a plan's name is taken, by that request's plan): the answer is that
        // request's. Any other refusal stands.
        Err(other) => {
            let client = client_id.to_owned();
            match store
                .query(move |db| idempotency::find(db, &client, &key, since))
                .await?
            {
                Some(stored) => replay(&stored, &hash, &keeping),
                None => Err(other.into_api()),
            }
        }
    }
}
