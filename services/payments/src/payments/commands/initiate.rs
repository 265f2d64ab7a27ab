//! Initialising a payment (POST /payments): what the checked request becomes (its account
//! and profile, the instrument to charge, the supporter it creates, the payment as it will
//! be recorded), then the three steps of every charge (charge.rs): record the intent, ask
//! the provider outside any transaction, record what it said.

use std::sync::Arc;

use actix_web::HttpResponse;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_model::money::Money;
use coffer_store::StoreError;

use super::charge::{payment_or_answer, record_on};
use super::intents::{self, Reserving};
use super::{ChargeBatches, current};
use crate::command_kit::{Asker, Parts, Reserved, provider_of, within};
use crate::error::PaymentsError;
use crate::payments::store;
use crate::shared::connector::{ChargeRequest, Charged, Connector, ConnectorError, Prepared};
use crate::shared::method::{Instrument, instrument_for, mandate_reference};
use crate::shared::profile_choice::account_and_profile;
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::request::Checked;
use crate::shared::supporter::Supporter;
use crate::shared::supporter_request::{RequestSupporter, supporter_of};

/// A payment about to be asked of its provider.
struct Intent {
    /// Pending, with its call `calling`; `created_payment_source_uuid` names the source to
    /// keep, when one is asked for.
    pub payment: Payment,
    pub instrument: Instrument,
    /// A supporter the payment creates.
    pub supporter: Option<Supporter>,
    /// A supporter the payment names, which must be the organisation's.
    pub named_supporter: Option<String>,
}

/// POST /payments: reads what the checked request becomes, records the intent, asks the
/// provider, records what it said.
pub(crate) async fn initiate(
    (state, batches): (&Parts, &ChargeBatches),
    caller: &Caller,
    asker: Asker,
    (hash, trace): (String, TraceContext),
    checked: Checked,
) -> Result<HttpResponse, PaymentsError> {
    let (
        Intent {
            payment,
            instrument,
            supporter,
            named_supporter,
        },
        connector,
    ) = intent_of(state, caller, checked).await?;
    let reserving = Reserving {
        state: state.clone(),
        asker: asker.clone(),
        hash,
        trace: trace.clone(),
        payment,
        supporter,
        named_supporter,
    };
    let reservation = intents::reserve(batches, reserving).await?;
    let payment = match payment_or_answer(state, reservation).await? {
        Reserved::Fresh(payment) => payment,
        Reserved::Answered(response) => return Ok(response),
    };
    state.outbox.committed();
    let request = ChargeRequest {
        key: &payment.uuid,
        amount: payment.amount,
        instrument: &instrument,
        store_as: payment.created_payment_source_uuid.as_deref(),
        prepared: None,
    };
    let answer = call(state, connector.as_ref(), request, payment.created).await;
    drop(instrument);
    let uuid = payment.uuid.clone();
    match answer {
        Ok(charged) => {
            let parts = (state, batches);
            if let Some(body) = record_on(parts, payment, charged, Some(&asker), &trace).await? {
                return Ok(HttpResponse::Created().json(body));
            }
        }
        Err(Unheard::Provider(e)) => {
            tracing::warn!(payment = %uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
        Err(Unheard::Recording(e)) => return Err(e),
        Err(Unheard::Settled) => {}
    }
    Ok(HttpResponse::Created().json(current(state, uuid).await?))
}

/// Why a charge has no answer to record here.
enum Unheard {
    /// The provider did not say what it did: the settler asks it.
    Provider(ConnectorError),
    /// What the provider made could not be recorded, so nothing was charged; the settler
    /// finds and cancels it.
    Recording(PaymentsError),
    /// The settler decided the payment before its charge was asked for.
    Settled,
}

/// Step 2 of a charge: what the provider makes ahead of it (recorded on the payment before
/// anything is charged), then the charge itself.
/// `started` is when the payment's call began, as recorded with it.
async fn call(
    state: &Parts,
    connector: &dyn Connector,
    request: ChargeRequest<'_>,
    started: i64,
) -> Result<Charged, Unheard> {
    let prepared = match within(state, connector.prepare(&request)).await {
        Ok(Prepared::Nothing) => None,
        Ok(Prepared::Made(id)) => Some(id),
        Ok(Prepared::Answered(charged)) => return Ok(charged),
        Err(e) => return Err(Unheard::Provider(e)),
    };
    if let Some(made) = &prepared {
        let (uuid, id) = (request.key.to_owned(), made.clone());
        let recorded = state
            .store
            .write(move |db| {
                store::record_prepared(db, &uuid, started, &id).map_err(StoreError::from)
            })
            .await
            .map_err(|e| Unheard::Recording(e.into()))?;
        if !recorded {
            return Err(Unheard::Settled);
        }
    }
    let request = ChargeRequest {
        prepared: prepared.as_deref(),
        ..request
    };
    within(state, connector.charge(request))
        .await
        .map_err(Unheard::Provider)
}

/// The payment a checked request will record, pending, its call about to begin, and the
/// connector that will charge it, once that connector would take it.
async fn intent_of(
    state: &Parts,
    caller: &Caller,
    checked: Checked,
) -> Result<(Intent, Arc<dyn Connector>), PaymentsError> {
    let account = checked.account.to_string();
    let (organisation, profile) =
        account_and_profile(&state.store, &state.accounts, caller, &checked).await?;
    let now = state.clock.now();
    // What is charged, and what of it is kept on the payment.
    let method = profile.payment_method;
    let (instrument, masked) = instrument_for(method, &checked, &state.fingerprint_key, now)?
        .ok_or_else(|| {
            PaymentsError::invalid(
                "payment_method",
                format!("{method} payments are not available yet"),
            )
        })?;
    let connector = provider_of(state, &profile).await?;
    let refused = connector.refuses(
        Some(checked.amount),
        &instrument,
        checked.create_payment_source,
    );
    if !refused.is_empty() {
        return Err(PaymentsError::invalid_all(refused));
    }
    let RequestSupporter {
        snapshot,
        named: named_supporter,
        created: supporter,
    } = supporter_of(&checked, &organisation, now.unix_timestamp())?;
    let payment_id = uuid::Uuid::new_v4();
    let payment_uuid = payment_id.to_string();
    // The EndToEndId travels with the collection through the banks and comes back in
    // camt.054 files; 34 characters fits the 35 ISO 20022 allows.
    let payment_uuid_simple = payment_id.simple().to_string();
    // Coffer's own identifiers of a debit, where they travel with it (not Stripe's).
    let sepa =
        matches!(instrument, Instrument::SepaDirectDebit(_)) && connector.own_debit_identifiers();
    // The source to keep, named now so that the provider keeps it under this key.
    let source_uuid = checked
        .create_payment_source
        .then(|| uuid::Uuid::new_v4().to_string());
    let payment = Payment {
        uuid: payment_uuid,
        created: now.unix_timestamp(),
        organisation_uuid: organisation.clone(),
        account_uuid: account,
        test_mode: profile.test_mode,
        payment_method: profile.payment_method,
        profile: profile.name.clone(),
        payment_provider: profile.provider.clone(),
        provider_payment_id: None,
        status: PaymentStatus::Pending,
        status_reason: None,
        amount: checked.amount,
        refunded_amount: Money {
            value: 0,
            currency: checked.amount.currency,
        },
        refunds: Vec::new(),
        payout_uuid: None,
        value_date: None,
        return_reason: None,
        supporter_uuid: supporter.as_ref().map(|s| s.uuid.clone()),
        supporter: snapshot,
        payment_information: masked,
        created_payment_source_uuid: source_uuid.clone(),
        subscription_uuid: None,
        subscription: checked.subscription.clone(),
        custom_parameters: checked.custom_parameters.clone(),
        locale: checked.locale.clone(),
        return_url: checked.return_url.clone(),
        action: None,
        end_to_end_id: sepa.then(|| format!("CF{}", payment_uuid_simple)),
        // The mandate the payment creates is the one its source charges again.
        mandate_reference: sepa.then(|| match &source_uuid {
            Some(source) => mandate_reference(source),
            None => mandate_reference(&payment_uuid_simple),
        }),
        charge_attempt_uuid: None,
        cancel_reason: None,
        payment_source_uuid: None,
        charge_state: ChargeState::Calling,
    };
    Ok((
        Intent {
            payment,
            instrument,
            supporter,
            named_supporter,
        },
        connector,
    ))
}
