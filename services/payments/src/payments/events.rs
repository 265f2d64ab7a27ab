//! What a payment announces (its outcome, and the supporter it created), and what payments
//! reads of billing: the charge attempts it makes payments for, and the subscriptions its
//! payments started.

use std::collections::{HashMap, HashSet};

use actix_web::web;
use coffer_events::catalogue::{
    CHARGE_ATTEMPT_CREATED, PAYMENT_FAILED, PAYMENT_SUCCEEDED, SUBSCRIPTION_CREATED,
    SUPPORTER_CREATED,
};
use coffer_events::{Event, Handler, HandlerError, OutboxEvent, TraceContext, append};
use coffer_model::money::Money;
use coffer_store::Db;
use serde_json::json;

use super::store as payments;
use crate::failure::{Failure, internal};
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::source::{Charge, Source, SourceStatus};
use crate::sources::store as sources;
use crate::state::PaymentsState;
use crate::supporters::domain::Supporter;

/// Writes the payment's events to the outbox and gives its response body.
pub(crate) fn announce(
    tx: &mut Db<'_>,
    state: &PaymentsState,
    payment: &Payment,
    supporter: Option<&Supporter>,
    trace: &TraceContext,
) -> Result<serde_json::Value, Failure> {
    let (events, body) = announcements(state, payment, supporter)?;
    append(tx, &events, Some(trace))?;
    Ok(body)
}

/// The payment's events, to be written in its transaction, and its response body.
pub(crate) fn announcements(
    state: &PaymentsState,
    payment: &Payment,
    supporter: Option<&Supporter>,
) -> Result<(Vec<OutboxEvent>, serde_json::Value), Failure> {
    let body = serde_json::to_value(payment).map_err(internal)?;
    let id = payment.uuid.parse().map_err(internal)?;
    let (organisation, account) = (
        payment.organisation_uuid.parse().ok(),
        payment.account_uuid.parse().ok(),
    );
    let mut events = Vec::new();
    if let Some(s) = supporter {
        let data = serde_json::to_value(s).map_err(internal)?;
        let sid = s.uuid.parse().map_err(internal)?;
        events.push(
            state
                .outbox
                .event(&SUPPORTER_CREATED, sid, organisation, None, data),
        );
    }
    match payment.status {
        PaymentStatus::Succeeded => events.push(state.outbox.event(
            &PAYMENT_SUCCEEDED,
            id,
            organisation,
            account,
            body.clone(),
        )),
        PaymentStatus::Failed => events.push(state.outbox.event(
            &PAYMENT_FAILED,
            id,
            organisation,
            account,
            body.clone(),
        )),
        _ => {}
    }
    Ok((events, body))
}

/// Billing's charge attempts, as payments receives them: `subscriptions.charge_attempt.created`
/// names the payment source, the amount and the attempt; payments records a payment for it
/// (once per event: the consumer's inbox, and one payment per attempt), a worker charges the
/// source, and the payment is announced (with `charge_attempt_uuid`) as any other, which is
/// how billing learns the result.
pub struct BillingCharges {
    pub(crate) state: web::Data<PaymentsState>,
}

fn field<'a>(event: &'a Event, path: &str) -> Result<&'a str, HandlerError> {
    event
        .data
        .pointer(path)
        .and_then(|v| v.as_str())
        .ok_or_else(|| HandlerError::Permanent(format!("{} has no {path}", event.name)))
}

impl Handler for BillingCharges {
    /// Billing's invoices and the rest of its subscriptions' events are not payments' concern.
    fn wants(&self, event: &Event) -> bool {
        SUBSCRIPTION_CREATED.is(&event.name) || CHARGE_ATTEMPT_CREATED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        self.handle_many(db, std::slice::from_ref(event))
    }

    /// A batch's charge attempts are recorded together, in a few statements: each makes a
    /// payment of its own, whatever else the batch holds (a payment names its subscription
    /// already, so no subscription event before it in the batch changes it).
    fn handle_many(&self, db: &mut Db<'_>, events: &[Event]) -> Result<(), HandlerError> {
        let mut asked = Vec::new();
        for event in events {
            if SUBSCRIPTION_CREATED.is(&event.name) {
                // A subscription a payment started: the payment now names it.
                if let Some(payment) = event.data["payment_uuid"].as_str() {
                    payments::link_subscription(db, payment, &event.object_uuid.to_string())?;
                }
            } else if CHARGE_ATTEMPT_CREATED.is(&event.name) {
                asked.push(asked_for(event)?);
            }
        }
        if asked.is_empty() {
            return Ok(());
        }
        let mut source_uuids: Vec<String> = asked.iter().map(|a| a.source.clone()).collect();
        source_uuids.sort();
        source_uuids.dedup();
        let sources: HashMap<String, Source> = sources::find_many(db, &source_uuids)?
            .into_iter()
            .map(|s| (s.uuid.clone(), s))
            .collect();
        let mut seen = HashSet::new();
        let mut made = Vec::new();
        for a in asked {
            // Once per attempt, also when it arrives twice in one batch.
            if !seen.insert(a.attempt.clone()) {
                continue;
            }
            let Some(source) = sources.get(&a.source) else {
                return Err(HandlerError::Permanent(format!(
                    "no payment source {}",
                    a.source
                )));
            };
            made.push(self.payment_for(source, a));
        }
        // Recorded here, in the events' transaction; a worker asks the provider once it has
        // committed (payments/commands.rs), never inside this handler. An attempt that has
        // a payment already (a redelivered event) gets no second one.
        let recorded: HashSet<String> = payments::insert_for_attempts(db, &made)?
            .into_iter()
            .collect();
        made.retain(|p| recorded.contains(&p.uuid));
        let mut reserved = false;
        for payment in &made {
            if payment.charge_state == ChargeState::Done {
                let trace = TraceContext::new_root();
                announce(db, &self.state, payment, None, &trace)
                    .map_err(|_| HandlerError::Transient("announcing the payment failed".into()))?;
            } else {
                reserved = true;
            }
        }
        if reserved {
            self.state.wake_sender.notify_one();
        }
        Ok(())
    }
}

/// What a charge attempt asks for, read from its event.
struct Asked {
    attempt: String,
    source: String,
    amount: Money,
    subscription: String,
    custom: serde_json::Value,
}

fn asked_for(event: &Event) -> Result<Asked, HandlerError> {
    let amount = Money::from_json(
        "amount",
        &json!({
            "value": event.data.pointer("/invoice/amount").cloned().unwrap_or_default(),
            "currency": field(event, "/invoice/currency")?,
        }),
    )
    .map_err(|e| HandlerError::Permanent(format!("{}: {e:?}", event.name)))?;
    Ok(Asked {
        attempt: event.object_uuid.to_string(),
        source: field(event, "/subscription/payment_source_uuid")?.to_owned(),
        amount,
        subscription: field(event, "/subscription/uuid")?.to_owned(),
        custom: event
            .data
            .pointer("/invoice/custom_parameters")
            .cloned()
            .filter(|v| v.is_object())
            .unwrap_or_else(|| json!({})),
    })
}

impl BillingCharges {
    /// The payment that answers `asked`: reserved for the sender, or failed at once when
    /// the source can no longer be charged (the attempt fails, not the event).
    fn payment_for(&self, source: &Source, asked: Asked) -> Payment {
        let mut payment = source.charged_again(
            Charge {
                amount: asked.amount,
                subscription_uuid: Some(asked.subscription),
                charge_attempt_uuid: Some(asked.attempt),
                custom_parameters: asked.custom,
            },
            ChargeState::Reserved,
            self.state.clock.unix(),
        );
        if source.status != SourceStatus::Active {
            payment.status = PaymentStatus::Failed;
            payment.status_reason = Some("payment_source_not_active".into());
            payment.charge_state = ChargeState::Done;
        }
        payment
    }
}
