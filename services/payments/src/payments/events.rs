//! What payments reads of billing: the charge attempts it makes payments for, and the
//! subscriptions its payments started. What a payment announces is in shared/announce.rs.

use std::collections::{HashMap, HashSet};

use actix_web::web;
use coffer_events::catalogue::{CHARGE_ATTEMPT_CREATED, SUBSCRIPTION_CREATED};
use coffer_events::{Event, Handler, HandlerError, TraceContext};
use coffer_model::money::Money;
use coffer_store::Db;
use serde_json::json;

use super::store as payments;
use crate::shared::announce::announce;
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::source::{Charge, Source, SourceStatus};
use crate::shared::source_store as sources;
use crate::state::PaymentsState;

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
                announce(db, &self.state.outbox, payment, &trace)
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
