//! Step 3 of charging (charge.rs): recording what the provider answered. Answers that
//! arrive together are recorded together, in one transaction and, on PostgreSQL, one
//! statement for all their payments (coffer_store::Batches): the outcome is the busiest
//! write of a payment, so under load this is where its round trips are saved.

use std::collections::HashSet;
use std::sync::Arc;

use actix_web::http::StatusCode;
use coffer_events::{OutboxEvent, TraceContext, append, append_traced};
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::{Failure, write_contended};
use coffer_store::Db;
use serde_json::{Value, json};

use crate::command_kit::Parts;
use crate::error::PaymentsError;
use crate::payments::store::{self, Answer};
use crate::shared::announce::{announcements, source_announcement};
use crate::shared::connector::{ChargeOutcome, Charged, StoreOutcome};
use crate::shared::method::PaymentMethod;
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::source::{Source, SourceStatus};
use crate::shared::source_store as sources;
use crate::shared::store as record;

/// Batches of outcomes recorded at a time, and answers in one batch at most.
pub(crate) const AT_ONCE: usize = 2;
pub(crate) const MAX_BATCH: usize = 64;

/// A provider's answer to record, for a payment whose call is under way.
#[derive(Clone)]
pub(crate) struct Recording {
    pub state: Parts,
    pub payment: Payment,
    pub charged: Charged,
    /// The Idempotency-Key whose final response this is, when a client is waiting on one.
    pub completes: Option<(String, IdempotencyKey)>,
    pub trace: TraceContext,
}

/// What each recording became: its response body, or None when its answer was recorded
/// already (by another request, process or the settler).
pub(crate) type Recorded = Result<Option<Value>, PaymentsError>;

/// Records a batch in one transaction; if that fails, each on its own, so one recording
/// that cannot be written never holds back the others.
pub(crate) async fn record_batch(batch: Vec<Recording>) -> Vec<Recorded> {
    let Some(state) = batch.first().map(|r| r.state.clone()) else {
        return Vec::new();
    };
    let items = Arc::new(batch);
    if items.len() > 1 {
        let shared = Arc::clone(&items);
        // The error itself is not made into an answer here: each recording alone gives
        // its own, and an internal one logs as it is made.
        if let Ok(bodies) = write_contended(&state.store, move |tx| apply_all(tx, &shared)).await {
            return bodies.into_iter().map(Ok).collect();
        }
    }
    let mut each = Vec::with_capacity(items.len());
    for recording in items.iter() {
        each.push(alone(&state, recording.clone()).await);
    }
    each
}

async fn alone(state: &Parts, recording: Recording) -> Recorded {
    let one = Arc::new(vec![recording]);
    write_contended(&state.store, move |tx| apply_all(tx, &one))
        .await
        .map(|mut bodies| bodies.pop().flatten())
        .map_err(PaymentsError::from)
}

/// The recordings in one transaction: every answer in one statement, then each recorded
/// payment's source, events and Idempotency-Key response.
fn apply_all(tx: &mut Db<'_>, batch: &[Recording]) -> Result<Vec<Option<Value>>, Failure> {
    let Some(state) = batch.first().map(|r| &r.state) else {
        return Ok(Vec::new());
    };
    let now = state.clock.unix();
    let answers: Vec<Answer> = batch
        .iter()
        .map(|r| answer_of(&r.payment, &r.charged))
        .collect();
    // A payment named twice in one batch is recorded once, by its first recording.
    let mut seen = HashSet::new();
    let first: Vec<(&str, &Value, &Answer)> = batch
        .iter()
        .zip(&answers)
        .filter(|(r, _)| seen.insert(r.payment.uuid.as_str()))
        .map(|(r, a)| (r.payment.uuid.as_str(), &r.payment.custom_parameters, a))
        .collect();
    let mut recorded: HashSet<String> = store::record_answers(tx, &first, now)?
        .into_iter()
        .collect();
    let mut bodies = Vec::with_capacity(batch.len());
    // The batch's events go to the outbox in one statement at the end, each under its own
    // request's trace.
    let mut events = Vec::with_capacity(batch.len());
    for (recording, answer) in batch.iter().zip(answers) {
        let payment = if recorded.remove(&recording.payment.uuid) {
            recording.payment.clone()
        } else {
            // Its custom parameters changed since they were read, so it is read again here
            // and the announced body is the stored one; or it is not under way any more.
            match record::find(tx, &recording.payment.uuid)? {
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
                    fresh
                }
                _ => {
                    bodies.push(None);
                    continue;
                }
            }
        };
        let (announced, body) = finish(tx, recording, payment, answer, now)?;
        if let Some((client, key)) = &recording.completes {
            idempotency::complete(tx, client, key, &(StatusCode::CREATED, body.clone()))?;
        }
        events.extend(announced.into_iter().map(|e| (e, Some(&recording.trace))));
        bodies.push(Some(body));
    }
    let traced: Vec<_> = events.iter().map(|(e, t)| (e, *t)).collect();
    append_traced(tx, &traced)?;
    Ok(bodies)
}

/// A recorded answer's consequences: the payment as it now stands and the source it kept;
/// answers the payment's events, still to be written, and its response body.
fn finish(
    tx: &mut Db<'_>,
    recording: &Recording,
    mut payment: Payment,
    answer: Answer,
    now: i64,
) -> Result<(Vec<OutboxEvent>, Value), Failure> {
    let state = &recording.state;
    payment.status = answer.status;
    payment.status_reason = answer.reason;
    payment.provider_payment_id = answer.provider_payment_id;
    payment.action = answer.action;
    payment.created_payment_source_uuid = answer.source_uuid.clone();
    payment.charge_state = ChargeState::Done;
    if let (
        Some(source_uuid),
        Some(StoreOutcome::Active { reference } | StoreOutcome::Pending { reference, .. }),
    ) = (&answer.source_uuid, &recording.charged.stored)
    {
        let source = kept_source(&payment, source_uuid, reference, now);
        sources::insert(tx, &source)?;
        if let Some(event) = source_announcement(&state.outbox, &source)? {
            append(tx, &[event], Some(&recording.trace))?;
        }
    }
    announcements(&state.outbox, &payment)
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
    if payment.payment_method == PaymentMethod::SepaDd {
        payment_information["mandate_reference"] =
            json!(crate::shared::method::mandate_reference(uuid));
    }
    Source {
        uuid: uuid.to_owned(),
        created: now,
        organisation_uuid: payment.organisation_uuid.clone(),
        account_uuid: payment.account_uuid.clone(),
        test_mode: payment.test_mode,
        payment_method: payment.payment_method,
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
