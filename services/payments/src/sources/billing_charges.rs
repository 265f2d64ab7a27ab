//! Billing's charge attempts, as payments receives them: `subscriptions.charge_attempt.created`
//! names the payment source, the amount and the attempt; payments records a payment for it
//! (once per event: the consumer's inbox, and one payment per attempt), a worker charges the
//! source, and the payment is announced (with `charge_attempt_uuid`) as any other, which is
//! how billing learns the result.

use actix_web::web;
use coffer_events::catalogue::{CHARGE_ATTEMPT_CREATED, SUBSCRIPTION_CREATED};
use coffer_events::{Event, Handler, HandlerError, TraceContext};
use coffer_model::money::Money;
use coffer_store::Db;
use serde_json::json;

use super::charge::recharge;
use super::domain::{Charge, SourceStatus};
use super::store as sources;
use crate::PaymentsState;
use crate::payments::events::announce;
use crate::payments::record::{ChargeState, PaymentStatus};
use crate::payments::store as payments;

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
    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        // A subscription a payment started: the payment now names it.
        if SUBSCRIPTION_CREATED.is(&event.name) {
            if let Some(payment) = event.data["payment_uuid"].as_str() {
                payments::link_subscription(db, payment, &event.object_uuid.to_string())?;
            }
            return Ok(());
        }
        if !CHARGE_ATTEMPT_CREATED.is(&event.name) {
            return Ok(());
        }
        let attempt = event.object_uuid.to_string();
        if payments::find_by_charge_attempt(db, &attempt)?.is_some() {
            return Ok(());
        }
        let source_uuid = field(event, "/subscription/payment_source_uuid")?;
        let amount = Money::from_json(
            "amount",
            &json!({
                "value": event.data.pointer("/invoice/amount").cloned().unwrap_or_default(),
                "currency": field(event, "/invoice/currency")?,
            }),
        )
        .map_err(|e| HandlerError::Permanent(format!("{}: {e:?}", event.name)))?;
        let subscription = field(event, "/subscription/uuid")?.to_owned();
        let custom = event
            .data
            .pointer("/invoice/custom_parameters")
            .cloned()
            .filter(|v| v.is_object())
            .unwrap_or_else(|| json!({}));
        let Some(source) = sources::find(db, source_uuid)? else {
            return Err(HandlerError::Permanent(format!(
                "no payment source {source_uuid}"
            )));
        };
        // Recorded here, in the event's transaction; a worker asks the provider once it has
        // committed (payments/commands.rs), never inside this handler.
        let mut payment = recharge(
            &self.state,
            &source,
            Charge {
                amount,
                subscription_uuid: Some(subscription),
                charge_attempt_uuid: Some(attempt),
                custom_parameters: custom,
            },
            ChargeState::Reserved,
        );
        // A source that can no longer be charged fails the attempt rather than the event.
        if source.status != SourceStatus::Active {
            payment.status = PaymentStatus::Failed;
            payment.status_reason = Some("payment_source_not_active".into());
            payment.charge_state = ChargeState::Done;
        }
        payments::insert(db, &payment)?;
        if payment.charge_state == ChargeState::Done {
            let trace = TraceContext::new_root();
            announce(db, &self.state, &payment, None, &trace)
                .map_err(|_| HandlerError::Transient("announcing the payment failed".into()))?;
        } else {
            self.state.wake_sender.notify_one();
        }
        Ok(())
    }
}
