//! Charging a stored payment source again: for billing's charge attempts (as events, see
//! payments/events.rs) and for a platform caller's `POST /payment-sources/{uuid}/charges`
//! (billing charges a donor's source for each invoice with its service token). The source
//! must be active, and the payment is recorded before the provider is asked, as every
//! charge is (charge.rs).

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_http::idempotency::IdempotencyKey;
use serde_json::Value;

use super::{ChargeBatches, charge_again};
use crate::command_kit::{Asker, Parts};
use crate::error::PaymentsError;
use crate::payments::domain::requested_charge;
use crate::shared::owned_source;
use crate::shared::record::ChargeState;
use crate::shared::source::not_chargeable;

/// POST /payment-sources/{uuid}/charges: the payment as its provider left it.
pub(crate) async fn charge_source(
    (state, batches): (&Parts, &ChargeBatches),
    caller: &Caller,
    key: IdempotencyKey,
    hash: String,
    (uuid, body): (String, &Value),
    trace: &TraceContext,
) -> Result<HttpResponse, PaymentsError> {
    let source = owned_source::load(&state.store, caller, uuid).await?;
    if let Some(why) = not_chargeable(source.status) {
        return Err(PaymentsError::conflict(why));
    }
    let charge = requested_charge(body).map_err(PaymentsError::invalid_all)?;
    let payment = source.charged_again(charge, ChargeState::Calling, state.clock.unix());
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    let reference = &source.provider_reference;
    charge_again((state, batches), asker, hash, payment, reference, trace).await
}
