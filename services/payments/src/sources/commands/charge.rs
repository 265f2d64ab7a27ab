//! A platform caller's charge of a stored source (billing charges a donor's source for
//! each invoice with its service token): the source must be active, the payment is recorded
//! before the provider is asked, as every charge is (payments/commands/charge.rs).

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_http::ApiError;
use coffer_http::idempotency::IdempotencyKey;
use serde_json::Value;

use super::load;
use crate::command_kit::{Asker, Parts};
use crate::payments::commands::charge_again;
use crate::shared::record::ChargeState;
use crate::sources::charge::recharge;
use crate::sources::domain::{not_chargeable, requested_charge};

/// POST /payment-sources/{uuid}/charges: the payment as its provider left it.
pub(crate) async fn charge(
    state: &Parts,
    caller: &Caller,
    key: IdempotencyKey,
    hash: String,
    (uuid, body): (String, &Value),
    trace: &TraceContext,
) -> Result<HttpResponse, ApiError> {
    let source = load(state, caller, uuid).await?;
    if let Some(why) = not_chargeable(source.status) {
        return Err(ApiError::conflict(why));
    }
    let charge = requested_charge(body).map_err(ApiError::validation)?;
    let payment = recharge(state, &source, charge, ChargeState::Calling);
    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    let reference = &source.provider_reference;
    charge_again(state, asker, hash, payment, reference, trace).await
}
