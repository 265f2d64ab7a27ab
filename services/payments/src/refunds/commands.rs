//! Giving money back: the refund is recorded (its amount taken from what may still be
//! refunded) before the provider is asked under the refund's uuid, and its outcome is
//! recorded once; a lost answer is settled by asking (`find_refund`).

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_events::catalogue::REFUND_SUCCEEDED;
use coffer_events::{TraceContext, append};
use coffer_http::idempotency;
use coffer_model::money::Money;
use coffer_store::Db;
use serde_json::{Value, json};

use super::store as refunds;
use crate::command_kit::{Asker, Parts, Reserved, require_owner, reserved, within};
use crate::error::PaymentsError;
use crate::shared::connector::RefundOutcome;
use crate::shared::record::{BANK_FILE, Payment, PaymentStatus, Refund, RefundStatus};
use crate::shared::store;

/// A refund being made: the refund recorded and the payment's reference at the provider.
#[derive(Clone)]
struct Recorded {
    refund: Refund,
    /// The payment refunded, whose provider and profile say which connector refunds it.
    payment: Payment,
}

fn body_of(refund: &Refund) -> Value {
    json!({ "uuid": refund.uuid, "amount": refund.amount, "status": refund.status })
}

/// The refund as it stands now, answered as Create a Refund answers.
async fn current(state: &Parts, uuid: String) -> Result<Value, PaymentsError> {
    let found = state
        .store
        .query(move |db| refunds::find_refund(db, &uuid))
        .await?;
    let (_, refund, _) = found.ok_or(PaymentsError::not_found("Refund"))?;
    Ok(body_of(&refund))
}

/// POST /payments/{uuid}/refunds: `requested`, or the whole residual when None.
pub(crate) async fn refund(
    state: &Parts,
    caller: Caller,
    asker: Asker,
    hash: String,
    trace: TraceContext,
    payment_uuid: String,
    requested: Option<Money>,
) -> Result<HttpResponse, PaymentsError> {
    let now = state.clock.unix();
    let reservation = asker
        .reserve(
            state,
            hash,
            move |tx| reserve(tx, &caller, &payment_uuid, requested, now),
            |r: &Recorded| json!({ "refund_uuid": r.refund.uuid }),
        )
        .await?;
    let in_progress = |uuid: String| async move {
        Ok::<_, PaymentsError>(HttpResponse::Ok().json(current(state, uuid).await?))
    };
    let recorded = match reserved(reservation, "refund_uuid", in_progress).await? {
        Reserved::Fresh(recorded) => recorded,
        Reserved::Answered(response) => return Ok(response),
    };
    let uuid = recorded.refund.uuid.clone();
    let paid = &recorded.payment;
    let answer = async {
        let connector = state.connectors.for_payment(paid).await?;
        let provider_payment_id = paid.provider_payment_id.as_deref().unwrap_or_default();
        within(
            state,
            connector.refund(&uuid, provider_payment_id, recorded.refund.amount),
        )
        .await
    }
    .await;
    match answer {
        Ok(outcome) => {
            if let Some(body) = record(state, &uuid, outcome, Some(&asker), &trace).await? {
                return Ok(HttpResponse::Ok().json(body));
            }
        }
        Err(e) => {
            tracing::warn!(refund = %uuid, error = %e, "the provider's answer is unknown; the refund stays pending until it is settled")
        }
    }
    Ok(HttpResponse::Ok().json(current(state, uuid).await?))
}

/// Step 1 in its transaction: the checks, the amount taken, the refund recorded pending.
fn reserve(
    tx: &mut Db<'_>,
    caller: &Caller,
    uuid: &str,
    requested: Option<Money>,
    now: i64,
) -> Result<Recorded, PaymentsError> {
    let payment = store::find(tx, uuid)?.ok_or(PaymentsError::not_found("Payment"))?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    if payment.status != PaymentStatus::Succeeded {
        return Err(PaymentsError::invalid(
            "payment_uuid",
            format!(
                "only a succeeded payment can be refunded; this one is {}",
                payment.status
            ),
        ));
    }
    // A payment read from a bank file was made by the bank, not through a provider: there
    // is none to ask, and its money goes back by a transfer of the charity's own.
    if payment.payment_provider == BANK_FILE {
        return Err(PaymentsError::invalid(
            "payment_uuid",
            "this payment was read from a bank file (payment_provider bank_file): no payment provider holds it, so it cannot be refunded through Coffer; pay it back by bank transfer",
        ));
    }
    let residual = payment.amount.value - payment.refunded_amount.value;
    let amount = match requested {
        Some(m) if m.currency != payment.amount.currency => {
            return Err(PaymentsError::invalid(
                "amount.currency",
                format!(
                    "must be the payment's currency, {}",
                    payment.amount.currency.code()
                ),
            ));
        }
        Some(m) if m.value == 0 => {
            return Err(PaymentsError::invalid("amount.value", "must be above 0"));
        }
        Some(m) => m,
        None if residual == 0 => {
            return Err(PaymentsError::invalid(
                "amount",
                "nothing is left to refund",
            ));
        }
        None => Money {
            value: residual,
            currency: payment.amount.currency,
        },
    };
    // The check that counts is in the update: a concurrent refund may have taken the
    // residual since the payment was read.
    if !refunds::add_refunded(tx, uuid, amount.value, now)? {
        return Err(PaymentsError::invalid(
            "amount.value",
            format!("exceeds what is left to refund ({residual} in minor units)"),
        ));
    }
    let refund = Refund {
        uuid: uuid::Uuid::new_v4().to_string(),
        amount,
        status: RefundStatus::Pending,
        status_reason: None,
        created: now,
    };
    refunds::insert_refund(tx, uuid, &refund)?;
    Ok(Recorded { refund, payment })
}

/// Step 3: records what the provider said of a refund, once; None when it was recorded
/// already.
async fn record(
    state: &Parts,
    uuid: &str,
    outcome: RefundOutcome,
    asker: Option<&Asker>,
    trace: &TraceContext,
) -> Result<Option<Value>, PaymentsError> {
    let (st, uuid, trace) = (state.clone(), uuid.to_owned(), trace.clone());
    let completes = asker.map(|a| (a.client_id.clone(), a.key.clone()));
    let body = state
        .store
        .write(move |tx| {
            let (status, reason) = match &outcome {
                RefundOutcome::Succeeded { .. } => (RefundStatus::Succeeded, None),
                RefundOutcome::Failed { reason } => (RefundStatus::Failed, Some(reason.as_str())),
            };
            if !refunds::record_refund(tx, &uuid, status, reason, st.clock.unix())? {
                return Ok::<_, PaymentsError>(None);
            }
            let (payment, refund, _) =
                refunds::find_refund(tx, &uuid)?.ok_or(diesel::result::Error::NotFound)?;
            let body = body_of(&refund);
            if status == RefundStatus::Succeeded {
                let found = store::find(tx, &payment)?.ok_or(diesel::result::Error::NotFound)?;
                let mut data = body.clone();
                data["payment_uuid"] = json!(payment);
                let event = st.outbox.event(
                    &REFUND_SUCCEEDED,
                    refund.uuid.parse().map_err(PaymentsError::internal)?,
                    found.organisation_uuid.parse().ok(),
                    found.account_uuid.parse().ok(),
                    data,
                );
                append(tx, &[event], Some(&trace))?;
            }
            if let Some((client, key)) = &completes {
                idempotency::complete(tx, client, key, &(StatusCode::OK, body.clone()))?;
            }
            Ok(Some(body))
        })
        .await?;
    if body.is_some() {
        state.outbox.committed();
        state.connectors.committed();
    }
    Ok(body)
}

/// Settles a refund whose call was never answered by asking the provider; one it never
/// received gave nothing back, and fails.
pub(crate) async fn settle(state: &Parts, uuid: &str, before: i64) -> Result<(), PaymentsError> {
    let (id, now) = (uuid.to_owned(), state.clock.unix());
    if !state
        .store
        .query(move |db| refunds::claim_refund(db, &id, before, now))
        .await?
    {
        return Ok(());
    }
    let id = uuid.to_owned();
    let paid = state
        .store
        .query(move |db| {
            let Some((payment_uuid, _, _)) = refunds::find_refund(db, &id)? else {
                return Ok(None);
            };
            store::find(db, &payment_uuid)
        })
        .await?
        .ok_or_else(|| PaymentsError::internal("a refund's payment is missing"))?;
    let asked = async {
        let connector = state.connectors.for_payment(&paid).await?;
        let provider_payment_id = paid.provider_payment_id.as_deref().unwrap_or_default();
        within(state, connector.find_refund(uuid, provider_payment_id)).await
    };
    let outcome = match asked.await {
        Ok(Some(outcome)) => outcome,
        Ok(None) => RefundOutcome::Failed {
            reason: "provider_unreachable".into(),
        },
        Err(e) => {
            tracing::warn!(refund = %uuid, error = %e, "the provider cannot say yet what it did; asking again later");
            return Ok(());
        }
    };
    record(state, uuid, outcome, None, &TraceContext::new_root()).await?;
    Ok(())
}
