//! The third way, for an effect whose answer cannot be stored in the transaction of its
//! effect (reading a bank file spans several): the key is held while the request runs, and
//! a request racing under it is given the first one's answer rather than run it again.

use actix_web::HttpResponse;
use coffer_error::ApiError;
use coffer_model::clock::Clock;
use coffer_store::idempotency;
use coffer_store::{Store, StoreError};
use diesel::result::{DatabaseErrorKind, Error as DieselError};

use super::Outcome;
use super::key::IdempotencyKey;
use super::reservation::{Reservation, complete, earlier, hold, release};
use super::transaction_failure::Failure;

/// What [`hold_while`] found under a key: nothing, so the request goes on, holding it; or
/// an earlier request's finished answer, to give instead.
pub enum Held {
    Fresh,
    Answered(HttpResponse),
}

/// For an effect that spans several transactions, so that its answer cannot be stored in
/// the transaction of its effect, and that is safe to run again (a bank file read twice
/// matches nothing twice): holds the key in progress while the request runs. A request
/// racing under the key waits up to `wait` for the first one's answer and gives it (409
/// if it has not come by then) rather than run the effect again. A hold older than
/// `stale_after` belongs to a request that stopped without finishing (a crash), and is
/// taken over. The caller ends the hold with [`finish`] or [`give_back`].
pub async fn hold_while(
    store: &Store,
    clock: &dyn Clock,
    (client_id, key, hash): (&str, &IdempotencyKey, &str),
    wait: std::time::Duration,
    stale_after: std::time::Duration,
) -> Result<Held, ApiError> {
    let Some(k) = key.0.clone() else {
        return Ok(Held::Fresh);
    };
    let stale_ms = i64::try_from(stale_after.as_millis()).unwrap_or(i64::MAX);
    let started = tokio::time::Instant::now();
    loop {
        match earlier::<()>(store, clock, client_id, key, hash).await? {
            Some(Reservation::Replay(answer)) => return Ok(Held::Answered(answer)),
            Some(_) => {
                let (client, k) = (client_id.to_owned(), k.clone());
                let before = clock.unix_ms().saturating_sub(stale_ms);
                let taken = store
                    .write(move |tx| {
                        idempotency::release_stale(tx, &client, &k, before)
                            .map_err(StoreError::from)
                    })
                    .await?;
                if !taken {
                    if started.elapsed() >= wait {
                        return Err(ApiError::conflict(
                            "A request with this Idempotency-Key is in progress",
                        ));
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            }
            None => {}
        }
        let (client, key, hash) = (client_id.to_owned(), key.clone(), hash.to_owned());
        let now = clock.unix_ms();
        let marker = serde_json::json!({});
        let held = store
            .write(move |tx| {
                hold(tx, now, &client, &key, &hash, &marker).map_err(Failure::<ApiError>::Store)
            })
            .await;
        match held {
            Ok(()) => return Ok(Held::Fresh),
            // Another request took the key meanwhile: wait for its answer as above.
            Err(Failure::Store(DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation,
                _,
            ))) => {}
            Err(other) => return Err(other.into_api()),
        }
    }
}

/// Stores the answer of a request [`hold_while`] let through, in a transaction of its own.
pub async fn finish(
    store: &Store,
    client_id: &str,
    key: &IdempotencyKey,
    outcome: Outcome,
) -> Result<(), ApiError> {
    let (client, key) = (client_id.to_owned(), key.clone());
    store
        .write(move |tx| complete(tx, &client, &key, &outcome).map_err(StoreError::from))
        .await?;
    Ok(())
}

/// Ends the hold of a request [`hold_while`] let through that failed, so the key may be
/// used again.
pub async fn give_back(
    store: &Store,
    client_id: &str,
    key: &IdempotencyKey,
) -> Result<(), ApiError> {
    let (client, key) = (client_id.to_owned(), key.clone());
    store
        .write(move |tx| release(tx, &client, &key).map_err(StoreError::from))
        .await?;
    Ok(())
}
