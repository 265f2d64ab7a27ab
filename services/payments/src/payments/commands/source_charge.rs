//! Charging a stored payment source again: for billing's charge attempts (as events, see
//! payments/events.rs) and for a platform caller's `POST /payment-sources/{uuid}/charges`
//! (billing charges a donor's source for each invoice with its service token). The source
//! must be active, and the payment is recorded before the provider is asked, as every
//! charge is (charge.rs).

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_http::ApiError;
use coffer_http::idempotency::IdempotencyKey;
use coffer_model::money::Money;
use serde_json::Value;

use super::charge_again;
use crate::PaymentsState;
use crate::command_kit::{Asker, Parts};
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::sources::commands as sources;
use crate::sources::domain::{Charge, not_chargeable, requested_charge};
use crate::sources::store::Source;

/// POST /payment-sources/{uuid}/charges: the payment as its provider left it.
pub(crate) async fn charge_source(
    state: &Parts,
    caller: &Caller,
    key: IdempotencyKey,
    hash: String,
    (uuid, body): (String, &Value),
    trace: &TraceContext,
) -> Result<HttpResponse, ApiError> {
    let source = sources::load(state, caller, uuid).await?;
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

/// The payment that charges `source` again, recorded before the provider is asked:
/// pending, its call `state` (reserved for a worker to send, or calling at once).
pub(crate) fn recharge(
    state: &PaymentsState,
    source: &Source,
    charge: Charge,
    call: ChargeState,
) -> Payment {
    let now = state.clock.unix();
    let payment_id = uuid::Uuid::new_v4();
    // A collection under a stored mandate: its own EndToEndId, the mandate's reference.
    let sepa = source.payment_method == "sepa_dd";
    Payment {
        uuid: payment_id.to_string(),
        created: now,
        organisation_uuid: source.organisation_uuid.clone(),
        account_uuid: source.account_uuid.clone(),
        test_mode: source.test_mode,
        payment_method: source.payment_method.clone(),
        profile: source.profile.clone(),
        payment_provider: source.payment_provider.clone(),
        provider_payment_id: None,
        status: PaymentStatus::Pending,
        status_reason: None,
        amount: charge.amount,
        refunded_amount: Money {
            value: 0,
            currency: charge.amount.currency,
        },
        refunds: Vec::new(),
        payout_uuid: None,
        value_date: None,
        return_reason: None,
        supporter_uuid: source.supporter_uuid.clone(),
        supporter: None,
        payment_information: source.payment_information.clone(),
        created_payment_source_uuid: None,
        subscription_uuid: charge.subscription_uuid,
        subscription: None,
        custom_parameters: charge.custom_parameters,
        locale: None,
        return_url: None,
        action: None,
        end_to_end_id: sepa.then(|| format!("CF{}", payment_id.simple())),
        mandate_reference: source
            .payment_information
            .get("mandate_reference")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        charge_attempt_uuid: charge.charge_attempt_uuid,
        cancel_reason: None,
        payment_source_uuid: Some(source.uuid.clone()),
        charge_state: call,
    }
}
