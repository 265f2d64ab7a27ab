//! For an effect that calls outside Coffer between two transactions: the first holds the
//! key in progress with a marker of its work, the second stores the final answer, and a
//! retry in between finds the first request's work instead of doing it again.

use actix_web::HttpResponse;
use coffer_error::ApiError;
use coffer_model::clock::Clock;
use coffer_store::idempotency::{self, StoredResponse};
use coffer_store::{Db, Store};
use diesel::result::{DatabaseErrorKind, Error as DieselError};

use super::answers::{Keeping, replay};
use super::key::IdempotencyKey;
use super::transaction_failure::Failure;
use super::{Outcome, WINDOW_MS};

/// What [`reserve`] found: the effect is new and ran (its record is in progress under the
/// key), or an earlier request's, finished or still in progress.
pub enum Reservation<T> {
    Fresh(T),
    Replay(HttpResponse),
    /// An earlier request under this key began and has not finished: what it recorded.
    InProgress(serde_json::Value),
}

/// For an effect that calls outside Coffer between two transactions: runs `effect` in a
/// write transaction and, under the key, records `marker(&result)` as in progress, so a
/// retry finds the first request's work instead of doing it again. [`complete`] stores the
/// final response in the transaction that records the outcome.
pub async fn reserve<T, F, E>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: &IdempotencyKey,
    hash: String,
    mut effect: F,
    marker: fn(&T) -> serde_json::Value,
) -> Result<Reservation<T>, ApiError>
where
    T: Send + 'static,
    F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let now = clock.unix_ms();
    if key.0.is_none() {
        let done = store
            .write(move |db| effect(db).map_err(Failure::Effect))
            .await
            .map_err(Failure::into_api)?;
        return Ok(Reservation::Fresh(done));
    }
    if let Some(found) = earlier(store, clock, client_id, key, &hash).await? {
        return Ok(found);
    }
    let (client, k, h) = (client_id.to_owned(), key.clone(), hash.clone());
    let result = store
        .write(move |tx| {
            let done = effect(tx).map_err(Failure::Effect)?;
            hold(tx, now, &client, &k, &h, &marker(&done)).map_err(Failure::Store)?;
            Ok(done)
        })
        .await;
    match result {
        Ok(done) => Ok(Reservation::Fresh(done)),
        Err(Failure::Store(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _))) => {
            match earlier(store, clock, client_id, key, &hash).await? {
                Some(found) => Ok(found),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            }
        }
        // As in [`run`]: a refusal caused by the request that holds the key meanwhile is
        // answered as that request.
        Err(other) => match earlier(store, clock, client_id, key, &hash).await? {
            Some(found) => Ok(found),
            None => Err(other.into_api()),
        },
    }
}

/// What an earlier request under `key` left within the window: its final response (or a
/// 409 for another body), or the record it marked while still in progress. None when the
/// key is new, or when no key was sent.
pub async fn earlier<T>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: &IdempotencyKey,
    hash: &str,
) -> Result<Option<Reservation<T>>, ApiError> {
    let Some(k) = key.0.clone() else {
        return Ok(None);
    };
    let since = clock.unix_ms() - WINDOW_MS;
    let client = client_id.to_owned();
    let Some(stored) = store
        .query(move |db| idempotency::find(db, &client, &k, since))
        .await?
    else {
        return Ok(None);
    };
    if stored.request_hash != hash || stored.status != idempotency::IN_PROGRESS {
        return replay(&stored, hash, &Keeping::Plain).map(|r| Some(Reservation::Replay(r)));
    }
    let marker = serde_json::from_str(&stored.response).map_err(ApiError::internal)?;
    Ok(Some(Reservation::InProgress(marker)))
}

/// Holds `key` in progress, marked with `marker`, in the transaction of its effect (as
/// [`reserve`] does; a command that reserves several requests' keys in one transaction
/// calls it for each). A key held meanwhile by another request fails the transaction with
/// a unique violation. No key, nothing to hold.
pub fn hold(
    tx: &mut Db<'_>,
    now_ms: i64,
    client_id: &str,
    key: &IdempotencyKey,
    hash: &str,
    marker: &serde_json::Value,
) -> Result<(), DieselError> {
    let Some(k) = &key.0 else {
        return Ok(());
    };
    let row = StoredResponse {
        client_id: client_id.to_owned(),
        idempotency_key: k.clone(),
        request_hash: hash.to_owned(),
        status: idempotency::IN_PROGRESS,
        response: marker.to_string(),
        created_ms: now_ms,
    };
    idempotency::save(tx, &row, now_ms - WINDOW_MS)
}

/// Stores the final response of a [`reserve`]d key, in the transaction of the outcome.
pub fn complete(
    tx: &mut Db<'_>,
    client_id: &str,
    key: &IdempotencyKey,
    outcome: &Outcome,
) -> Result<(), DieselError> {
    match &key.0 {
        None => Ok(()),
        Some(k) => idempotency::complete(
            tx,
            client_id,
            k,
            i32::from(outcome.0.as_u16()),
            &outcome.1.to_string(),
        ),
    }
}

/// Gives back a [`reserve`]d key whose effect recorded nothing, so it may be used again.
pub fn release(tx: &mut Db<'_>, client_id: &str, key: &IdempotencyKey) -> Result<(), DieselError> {
    match &key.0 {
        None => Ok(()),
        Some(k) => idempotency::release(tx, client_id, k),
    }
}
