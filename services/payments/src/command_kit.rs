//! What every command of payments holds, whatever its feature: the service's state
//! ([`Parts`]), who asked ([`Asker`]) and their Idempotency-Key reserved ([`Reserved`]),
//! the provider's call kept within its time, and the check that a caller owns what they
//! touch (shared/owner.rs, named here for commands).

use std::sync::Arc;

use actix_web::HttpResponse;
use coffer_http::idempotency::{self, IdempotencyKey, Reservation};
use coffer_store::Db;
use diesel::result::Error as DieselError;
use serde_json::Value;

use crate::error::PaymentsError;
use crate::shared::connector::{Connector, ConnectorError};
use crate::shared::profile::Profile;
// Defined in the low room, which payment sources' reading (shared/owned_source.rs) uses too.
pub(crate) use crate::shared::owner::require_owner;
use crate::state::PaymentsState;

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

/// The profile's connector; one that cannot be opened (its connector account missing, or
/// the master keys) charges nothing, and the request is answered 503.
pub(crate) async fn provider_of(
    state: &Parts,
    profile: &Profile,
) -> Result<Arc<dyn Connector>, PaymentsError> {
    state.connectors.for_profile(profile).await.map_err(|e| {
        tracing::error!(profile = %profile.uuid, error = %e, "the profile's connector cannot be opened");
        PaymentsError::ProviderSilent("the payment method's provider cannot be reached; nothing was charged")
    })
}

/// The connector that charged `payment`; one that cannot be opened answers 503, as the
/// profile's does (`provider_of`).
pub(crate) async fn provider_of_payment(
    state: &Parts,
    payment: &crate::shared::record::Payment,
) -> Result<Arc<dyn Connector>, PaymentsError> {
    state.connectors.for_payment(payment).await.map_err(|e| {
        tracing::error!(payment = %payment.uuid, error = %e, "the payment's connector cannot be opened");
        PaymentsError::ProviderSilent("the payment's provider cannot be reached; try again shortly")
    })
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
    ) -> Result<Reservation<T>, PaymentsError>
    where
        T: Send + 'static,
        F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
        E: From<DieselError> + Into<coffer_http::ApiError> + Send + 'static,
    {
        // The helper's answer (a key in use, another body) is carried unchanged.
        Ok(idempotency::reserve(
            &state.store,
            state.clock.as_ref(),
            &self.client_id,
            &self.key,
            hash,
            effect,
            marker,
        )
        .await?)
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
pub(crate) async fn reserved<T, F, Fut, E>(
    reservation: Reservation<T>,
    field: &str,
    in_progress: F,
) -> Result<Reserved<T>, PaymentsError>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = Result<HttpResponse, E>>,
    E: Into<PaymentsError>,
{
    match reservation {
        Reservation::Fresh(done) => Ok(Reserved::Fresh(done)),
        Reservation::Replay(response) => Ok(Reserved::Answered(response)),
        Reservation::InProgress(marker) => {
            let uuid = marker[field].as_str().unwrap_or_default().to_owned();
            in_progress(uuid)
                .await
                .map(Reserved::Answered)
                .map_err(Into::into)
        }
    }
}
