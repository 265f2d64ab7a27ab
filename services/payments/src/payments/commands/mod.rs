//! Taking money and giving it back, each as three steps with the provider's call between
//! them (docs/payments.md, "Charging"): record the intent, call the provider outside any
//! transaction under a key it sees, record the outcome once. An outcome not heard is
//! settled by asking the provider about that key, never by calling again.

pub(crate) mod changes;
pub(crate) mod charge;
pub(crate) mod refund;

use coffer_http::ApiError;
use serde_json::Value;

pub(crate) use self::charge::{Asker, Intent, charge_again, initiate, send, settle};
use crate::PaymentsState;
use crate::connectors::ConnectorError;
use crate::payments::store;

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

/// The payment as its Get operation answers it.
pub(crate) async fn current(state: &Parts, uuid: String) -> Result<Value, ApiError> {
    let payment = state
        .store
        .query(move |db| store::find(db, &uuid))
        .await?
        .ok_or_else(|| ApiError::not_found("Payment"))?;
    serde_json::to_value(payment).map_err(ApiError::internal)
}
