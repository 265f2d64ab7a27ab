//! Taking money, as three steps with the provider's call between them (docs/payments.md,
//! "Charging"):
//!
//! 1. record the intent: the payment is stored pending, its call `calling` (or `reserved`,
//!    to be sent by a worker), with the Idempotency-Key reserved in the same transaction;
//! 2. call the provider, outside any transaction, with the payment's uuid as the key the
//!    provider sees and a timeout;
//! 3. record the outcome in a transaction of its own, once, whoever hears it first.
//!
//! An outcome not heard (a timeout, a crash) leaves the payment `calling`; [`settle`] then
//! asks the provider what it did under that key. Nothing here ever calls again under a new
//! key, so no retry, crash or second process charges twice.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_events::{TraceContext, append};
use coffer_http::idempotency;
use coffer_http::{ApiError, Failure, internal};
use coffer_store::Db;
use serde_json::{Value, json};

use super::{Asker, Parts, Reserved, current, reserved, within};
use crate::connectors::{ChargeOutcome, ChargeRequest, Charged, Instrument, StoreOutcome};
use crate::payments::events::announce;
use crate::payments::record::{ChargeState, Payment, PaymentStatus};
use crate::payments::store::{self, Answer};
use crate::sources::domain::SourceStatus;
use crate::sources::events::announcement;
use crate::sources::store::{self as sources, Source};
use crate::supporters::domain::Supporter;

/// A payment about to be asked of its provider.
pub(crate) struct Intent {
    /// Pending, with its call `calling`; `created_payment_source_uuid` names the source to
    /// keep, when one is asked for.
    pub payment: Payment,
    pub instrument: Instrument,
    /// A supporter the payment creates.
    pub supporter: Option<Supporter>,
    /// A supporter the payment names, which must be the organisation's.
    pub named_supporter: Option<String>,
}

/// POST /payments: records the intent, asks the provider, records what it said.
pub(crate) async fn initiate(
    state: &Parts,
    asker: Asker,
    hash: String,
    trace: TraceContext,
    intent: Intent,
) -> Result<HttpResponse, ApiError> {
    let Intent {
        payment,
        instrument,
        supporter,
        named_supporter,
    } = intent;
    let (st, tr) = (state.clone(), trace.clone());
    let reservation = asker
        .reserve(
            state,
            hash,
            move |tx| {
                reserve(
                    tx,
                    &st,
                    payment.clone(),
                    supporter.as_ref(),
                    named_supporter.as_deref(),
                    &tr,
                )
            },
            |p: &Payment| json!({ "payment_uuid": p.uuid }),
        )
        .await?;
    // A retry while the first request is still under way, or after it stopped, is answered
    // with the payment as it stands, never a second charge.
    let in_progress = |uuid: String| async move {
        Ok::<_, ApiError>(HttpResponse::Created().json(current(state, uuid).await?))
    };
    let payment = match reserved(reservation, "payment_uuid", in_progress).await? {
        Reserved::Fresh(payment) => payment,
        Reserved::Answered(response) => return Ok(response),
    };
    state.outbox.committed();
    let answer = within(
        state,
        state.connector.charge(ChargeRequest {
            key: &payment.uuid,
            amount: payment.amount,
            instrument: &instrument,
            store_as: payment.created_payment_source_uuid.as_deref(),
        }),
    )
    .await;
    drop(instrument);
    let uuid = payment.uuid.clone();
    match answer {
        Ok(charged) => {
            if let Some(body) = record_on(state, payment, charged, Some(&asker), &trace).await? {
                return Ok(HttpResponse::Created().json(body));
            }
        }
        Err(e) => {
            tracing::warn!(payment = %uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
    }
    Ok(HttpResponse::Created().json(current(state, uuid).await?))
}

/// Step 1 of [`initiate`], in its transaction.
fn reserve(
    tx: &mut Db<'_>,
    state: &Parts,
    mut payment: Payment,
    supporter: Option<&Supporter>,
    named_supporter: Option<&str>,
    trace: &TraceContext,
) -> Result<Payment, Failure> {
    if let Some(named) = named_supporter {
        let found = crate::supporters::store::find(tx, named)?
            .filter(|s| s.organisation_uuid == payment.organisation_uuid)
            .ok_or_else(|| Failure::from(ApiError::not_found("Supporter")))?;
        payment.supporter_uuid = Some(found.uuid);
    }
    if let Some(s) = supporter {
        crate::supporters::store::insert(tx, s)?;
        let event = state.outbox.event(
            &coffer_events::catalogue::SUPPORTER_CREATED,
            s.uuid.parse().map_err(internal)?,
            payment.organisation_uuid.parse().ok(),
            None,
            serde_json::to_value(s).map_err(internal)?,
        );
        append(tx, &[event], Some(trace))?;
    }
    store::insert(tx, &payment)?;
    Ok(payment)
}

/// Step 3: records the provider's answer for a payment whose call is under way, with the
/// source it kept, and announces the outcome. None when the answer was recorded already.
pub(crate) async fn record(
    state: &Parts,
    uuid: &str,
    charged: Charged,
    asker: Option<&Asker>,
    trace: &TraceContext,
) -> Result<Option<Value>, ApiError> {
    // Read before the write transaction, so the write holds the database only as long as
    // it writes; the update itself checks that the call is still under way.
    let id = uuid.to_owned();
    let Some(payment) = state.store.query(move |db| store::find(db, &id)).await? else {
        return Ok(None);
    };
    record_on(state, payment, charged, asker, trace).await
}

/// [`record`] for a payment at hand as it was recorded (its call under way).
async fn record_on(
    state: &Parts,
    payment: Payment,
    charged: Charged,
    asker: Option<&Asker>,
    trace: &TraceContext,
) -> Result<Option<Value>, ApiError> {
    if payment.charge_state != ChargeState::Calling {
        return Ok(None);
    }
    let (st, trace) = (state.clone(), trace.clone());
    let completes = asker.map(|a| (a.client_id.clone(), a.key.clone()));
    let body = state
        .store
        .write(move |tx| {
            let Some(body) = apply(tx, &st, &payment, &charged, &trace)? else {
                return Ok::<_, Failure>(None);
            };
            if let Some((client, key)) = &completes {
                idempotency::complete(tx, client, key, &(StatusCode::CREATED, body.clone()))?;
            }
            Ok(Some(body))
        })
        .await
        .map_err(ApiError::from)?;
    if body.is_some() {
        state.outbox.committed();
        state.connector.committed();
    }
    Ok(body)
}

/// The answer as stored on the payment.
fn answer_of(payment: &Payment, charged: &Charged) -> Answer {
    let (status, reason, provider_id, action) = match &charged.outcome {
        ChargeOutcome::Succeeded {
            provider_payment_id,
        } => (PaymentStatus::Succeeded, None, provider_payment_id, None),
        ChargeOutcome::Failed {
            provider_payment_id,
            reason,
        } => (
            PaymentStatus::Failed,
            Some(reason.clone()),
            provider_payment_id,
            None,
        ),
        ChargeOutcome::Pending {
            provider_payment_id,
            redirect,
        } => (
            PaymentStatus::Pending,
            None,
            provider_payment_id,
            redirect
                .as_ref()
                .map(|url| json!({ "type": "redirect", "url": url })),
        ),
    };
    let kept = status != PaymentStatus::Failed
        && matches!(
            charged.stored,
            Some(StoreOutcome::Active { .. } | StoreOutcome::Pending { .. })
        );
    Answer {
        status,
        reason,
        provider_payment_id: (!provider_id.is_empty()).then(|| provider_id.clone()),
        action,
        source_uuid: payment.created_payment_source_uuid.clone().filter(|_| kept),
    }
}

/// The source a payment keeps: its instrument as the payment shows it, charged again by
/// the provider's reference. One that waits for the donor waits with the payment, and the
/// donor's decision on the payment decides the source too (test_psp.rs).
fn kept_source(payment: &Payment, uuid: &str, reference: &str, now: i64) -> Source {
    let mut payment_information = payment.payment_information.clone();
    if payment.payment_method == "sepa_dd" {
        payment_information["mandate_reference"] =
            json!(crate::payments::intent::mandate_reference(uuid));
    }
    Source {
        uuid: uuid.to_owned(),
        created: now,
        organisation_uuid: payment.organisation_uuid.clone(),
        account_uuid: payment.account_uuid.clone(),
        test_mode: payment.test_mode,
        payment_method: payment.payment_method.clone(),
        profile: payment.profile.clone(),
        payment_provider: payment.payment_provider.clone(),
        provider_reference: reference.to_owned(),
        status: SourceStatus::kept(payment.action.is_some()),
        status_reason: None,
        payment_information,
        supporter_uuid: payment.supporter_uuid.clone(),
        custom_parameters: json!({}),
        action: None,
        return_url: None,
    }
}

/// Step 3 in its transaction: the answer, the kept source and the events, or nothing
/// when the payment's call is no longer under way.
fn apply(
    tx: &mut Db<'_>,
    state: &Parts,
    payment: &Payment,
    charged: &Charged,
    trace: &TraceContext,
) -> Result<Option<Value>, Failure> {
    let now = state.clock.unix();
    let answer = answer_of(payment, charged);
    let mut payment = payment.clone();
    // The update applies only to a call still under way (whoever records second, here or
    // in another process, changes nothing) and to the custom parameters as they were read
    // before this transaction. If they changed since, the payment is read again here, so
    // the announced body is the stored one.
    if !store::record_answer(tx, &payment.uuid, &payment.custom_parameters, &answer, now)? {
        match store::find(tx, &payment.uuid)? {
            Some(fresh)
                if fresh.charge_state == ChargeState::Calling
                    && store::record_answer(
                        tx,
                        &fresh.uuid,
                        &fresh.custom_parameters,
                        &answer,
                        now,
                    )? =>
            {
                payment = fresh;
            }
            _ => return Ok(None),
        }
    }
    payment.status = answer.status;
    payment.status_reason = answer.reason.clone();
    payment.provider_payment_id = answer.provider_payment_id.clone();
    payment.action = answer.action.clone();
    payment.created_payment_source_uuid = answer.source_uuid.clone();
    payment.charge_state = ChargeState::Done;
    if let (
        Some(source_uuid),
        Some(StoreOutcome::Active { reference } | StoreOutcome::Pending { reference, .. }),
    ) = (&answer.source_uuid, &charged.stored)
    {
        let source = kept_source(&payment, source_uuid, reference, now);
        sources::insert(tx, &source)?;
        if let Some(event) = announcement(state, &source)? {
            append(tx, &[event], Some(trace))?;
        }
    }
    announce(tx, state, &payment, None, trace).map(Some)
}

/// Settles a payment whose call began long enough ago and was never answered, by asking
/// the provider what it did under the payment's key. A key the provider never received
/// was never charged: the payment fails, and nothing is sent again.
pub(crate) async fn settle(state: &Parts, uuid: &str, before: i64) -> Result<(), ApiError> {
    let (id, now) = (uuid.to_owned(), state.clock.unix());
    let claimed = state
        .store
        .query(move |db| store::claim_call(db, &id, ChargeState::Calling, before, now))
        .await?;
    if !claimed {
        return Ok(());
    }
    let known = match within(state, state.connector.find_charge(uuid)).await {
        Ok(known) => known,
        Err(e) => {
            tracing::warn!(payment = %uuid, error = %e, "the provider cannot say yet what it did; asking again later");
            return Ok(());
        }
    };
    let charged = known.unwrap_or_else(|| Charged {
        outcome: ChargeOutcome::Failed {
            provider_payment_id: String::new(),
            reason: "provider_unreachable".into(),
        },
        stored: None,
    });
    record(state, uuid, charged, None, &TraceContext::new_root()).await?;
    Ok(())
}

/// POST /payment-sources/{uuid}/charges: records `payment` (calling), charges the source by
/// its provider reference under the payment's key, and records what the provider said.
pub(crate) async fn charge_again(
    state: &Parts,
    payment: Payment,
    reference: &str,
    trace: &TraceContext,
) -> Result<Value, ApiError> {
    let recorded = payment.clone();
    state
        .store
        .write(move |tx| store::insert(tx, &recorded).map_err(Failure::from))
        .await
        .map_err(ApiError::from)?;
    let answer = within(
        state,
        state
            .connector
            .charge_stored(reference, &payment.uuid, payment.amount),
    )
    .await;
    match answer {
        Ok(outcome) => {
            let charged = Charged {
                outcome,
                stored: None,
            };
            if let Some(body) = record(state, &payment.uuid, charged, None, trace).await? {
                return Ok(body);
            }
        }
        Err(e) => {
            tracing::warn!(payment = %payment.uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
    }
    current(state, payment.uuid).await
}

/// Sends a payment recorded `reserved` (billing's charge attempts): takes it into a call,
/// charges its source under the payment's key, and records the outcome.
pub(crate) async fn send(state: &Parts, uuid: &str) -> Result<(), ApiError> {
    let (id, now) = (uuid.to_owned(), state.clock.unix());
    let claimed = state
        .store
        .query(move |db| store::claim_call(db, &id, ChargeState::Reserved, i64::MAX, now))
        .await?;
    if !claimed {
        return Ok(());
    }
    let id = uuid.to_owned();
    let found = state
        .store
        .query(move |db| {
            let Some(payment) = store::find(db, &id)? else {
                return Ok(None);
            };
            let source = match &payment.payment_source_uuid {
                Some(s) => sources::find(db, s)?,
                None => None,
            };
            Ok(Some((payment, source)))
        })
        .await?;
    let Some((payment, Some(source))) = found else {
        tracing::warn!(payment = %uuid, "a reserved payment names no payment source it can charge");
        return Ok(());
    };
    let answer = within(
        state,
        state
            .connector
            .charge_stored(&source.provider_reference, uuid, payment.amount),
    )
    .await;
    match answer {
        Ok(outcome) => {
            record(
                state,
                uuid,
                Charged {
                    outcome,
                    stored: None,
                },
                None,
                &TraceContext::new_root(),
            )
            .await?;
        }
        Err(e) => {
            tracing::warn!(payment = %uuid, error = %e, "the provider's answer is unknown; the payment stays pending until it is settled")
        }
    }
    Ok(())
}
