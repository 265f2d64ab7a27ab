//! Taking money and giving it back, each as three steps with the provider's call between
//! them (docs/payments.md, "Charging"): record the intent, call the provider outside any
//! transaction under a key it sees, record the outcome once. An outcome not heard is
//! settled by asking the provider about that key, never by calling again.

pub(crate) mod changes;
pub(crate) mod charge;
pub(crate) mod intents;
pub(crate) mod outcome;
pub(crate) mod refund;
pub(crate) mod test_psp;

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_http::ApiError;
use coffer_http::idempotency::{self, IdempotencyKey, Reservation};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::Value;

pub(crate) use self::charge::{Intent, charge_again, initiate, send, settle};
use crate::PaymentsState;
use crate::connectors::ConnectorError;
use crate::payments::store;
use crate::shared::record::Payment;

/// The service's state as commands hold it: shared, cheap to move into a transaction.
pub(crate) type Parts = actix_web::web::Data<PaymentsState>;

/// Waits for the provider at most the configured time; past it the outcome is unknown.
pub(crate) async fn within<T>(
    state: &Parts,
    call: impl Future<Output = Result<T, ConnectorError>>,
) -> Result<T, ConnectorError> {
    tokio::time::timeout(state.connector_timeout, call)
        .await
        .unwrap_or(Err(ConnectorError::Timeout))
}

/// Refuses a caller who may not touch the account (and organisation) a payment or a
/// source belongs to.
pub(crate) fn require_owner(
    caller: &Caller,
    account_uuid: &str,
    organisation_uuid: &str,
) -> Result<(), ApiError> {
    caller.require_account(
        account_uuid.parse().map_err(ApiError::internal)?,
        organisation_uuid.parse().map_err(ApiError::internal)?,
    )
}

async fn find(state: &Parts, uuid: String) -> Result<Payment, ApiError> {
    state
        .store
        .query(move |db| store::find(db, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Payment"))
}

/// The payment, once the caller may touch it.
pub(crate) async fn load(
    state: &Parts,
    caller: &Caller,
    uuid: String,
) -> Result<Payment, ApiError> {
    let payment = find(state, uuid).await?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    Ok(payment)
}

/// The payment as its Get operation answers it.
pub(crate) async fn current(state: &Parts, uuid: String) -> Result<Value, ApiError> {
    serde_json::to_value(find(state, uuid).await?).map_err(ApiError::internal)
}

/// Who asked, so the final answer is stored under their key.
#[derive(Clone)]
pub(crate) struct Asker {
    pub client_id: String,
    pub key: IdempotencyKey,
}

impl Asker {
    /// Runs `effect` under the asker's key, which stays in progress, marked with
    /// `marker(&result)`, until the command completes it (coffer_http's
    /// `idempotency::reserve`); [`reserved`] answers a key used before.
    pub(crate) async fn reserve<T, F, E>(
        &self,
        state: &Parts,
        hash: String,
        effect: F,
        marker: fn(&T) -> Value,
    ) -> Result<Reservation<T>, ApiError>
    where
        T: Send + 'static,
        F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
        E: From<DieselError> + Into<ApiError> + Send + 'static,
    {
        idempotency::reserve(
            &state.store,
            state.clock.as_ref(),
            &self.client_id,
            &self.key,
            hash,
            effect,
            marker,
        )
        .await
    }
}

/// What a reserved Idempotency-Key leaves a command: its fresh effect to go on with, or the
/// answer already due to a request made before under the same key.
pub(crate) enum Reserved<T> {
    Fresh(T),
    Answered(HttpResponse),
}

/// Answers an earlier request under the key: replayed when it finished; while it is still
/// under way (or stopped half-way), `in_progress` shows the record it marked under `field`,
/// so a retry sees the first request's work and never does it again.
pub(crate) async fn reserved<T, F, Fut>(
    reservation: Reservation<T>,
    field: &str,
    in_progress: F,
) -> Result<Reserved<T>, ApiError>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = Result<HttpResponse, ApiError>>,
{
    match reservation {
        Reservation::Fresh(done) => Ok(Reserved::Fresh(done)),
        Reservation::Replay(response) => Ok(Reserved::Answered(response)),
        Reservation::InProgress(marker) => {
            let uuid = marker[field].as_str().unwrap_or_default().to_owned();
            in_progress(uuid).await.map(Reserved::Answered)
        }
    }
}
