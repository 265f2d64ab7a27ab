//! What the test provider's pages do (payments/routes.rs): find what a donor is
//! asked to approve, record their decision on a payment (and on the source it keeps) or on
//! a source, and, in test mode, a bank's collection of a direct debit. Real providers host
//! such pages themselves and tell the outcome by webhook.

use coffer_auth::Caller;
use coffer_events::TraceContext;

use super::ending::{Ending, end_pending};
use crate::command_kit::{Parts, require_owner};
use crate::error::PaymentsError;
use crate::payments::domain::{Decision, awaits_donor, return_location};
use crate::shared::connector::TEST_PROVIDER;
use crate::shared::method::PaymentMethod;
use crate::shared::record::{Payment, PaymentStatus};
use crate::shared::source::{Source, SourceStatus};
use crate::shared::source_decision::decide_in;
use crate::shared::source_store as sources;
use crate::shared::store as record;

/// What the donor is asked to approve: a payment, or a payment source to keep.
pub(crate) enum Subject {
    Payment(Box<Payment>),
    Source(Box<Source>),
}

impl Subject {
    fn pending(&self) -> bool {
        match self {
            Subject::Payment(p) => p.status == PaymentStatus::Pending,
            Subject::Source(s) => s.status == SourceStatus::Pending,
        }
    }

    fn action(&self) -> Option<&serde_json::Value> {
        match self {
            Subject::Payment(p) => p.action.as_ref(),
            Subject::Source(s) => s.action.as_ref(),
        }
    }

    /// Whether the page shows Approve and Decline: the donor was sent there to decide.
    pub(crate) fn awaits_donor(&self) -> bool {
        awaits_donor(self.pending(), self.action())
    }

    /// Whether a donor could have been sent to the page for it: not for a direct debit
    /// (the bank decides it), nor for a charge of a stored source (nobody is asked).
    fn could_await_donor(&self) -> bool {
        match self {
            Subject::Payment(p) => {
                p.payment_method != PaymentMethod::SepaDd
                    && p.payment_source_uuid.is_none()
                    && p.charge_attempt_uuid.is_none()
            }
            Subject::Source(s) => s.payment_method != PaymentMethod::SepaDd,
        }
    }
}

/// The test provider's payment or source `uuid`, as its page knows it: one that waits for
/// its donor there, or one that has ended and could have. A direct debit and a charge of a
/// stored source (billing's attempts) are never the page's to show or decide: their uuids
/// travel through banks and webhooks, and nobody but the donor asked may decide a payment
/// here, or learn how one ended.
pub(crate) async fn subject(state: &Parts, uuid: String) -> Result<Subject, PaymentsError> {
    let found = any_subject(state, uuid).await?;
    let ended = !found.pending() && found.could_await_donor();
    if !(found.awaits_donor() || ended) {
        return Err(PaymentsError::not_found("Payment"));
    }
    Ok(found)
}

/// The test provider's payment or source `uuid`, whatever it waits for.
async fn any_subject(state: &Parts, uuid: String) -> Result<Subject, PaymentsError> {
    let found = state
        .store
        .query(move |db| {
            if let Some(p) = record::find(db, &uuid)? {
                return Ok(Some(Subject::Payment(Box::new(p))));
            }
            Ok(sources::find(db, &uuid)?.map(|s| Subject::Source(Box::new(s))))
        })
        .await?;
    match found {
        Some(Subject::Payment(p)) if p.payment_provider == TEST_PROVIDER => Ok(Subject::Payment(p)),
        Some(Subject::Source(s)) if s.payment_provider == TEST_PROVIDER => Ok(Subject::Source(s)),
        _ => Err(PaymentsError::not_found("Payment")),
    }
}

/// The test provider's payment `uuid`.
async fn test_payment(state: &Parts, uuid: String) -> Result<Payment, PaymentsError> {
    let payment = super::find(state, uuid).await?;
    if payment.payment_provider != TEST_PROVIDER {
        return Err(PaymentsError::not_found("Payment"));
    }
    Ok(payment)
}

/// Where the donor goes once they have decided.
pub(crate) enum Next {
    /// Back to the merchant's `return_url`, which is told what was decided.
    Back(String),
    /// There is no `return_url`: the page again, showing the outcome.
    Page(Subject),
}

/// The donor approves or declines the payment or source `uuid`.
pub(crate) async fn decide(
    state: &Parts,
    uuid: String,
    decision: Decision,
) -> Result<Next, PaymentsError> {
    let (status, reason) = decision.outcome();
    let payment = match subject(state, uuid.clone()).await? {
        Subject::Payment(p) => *p,
        Subject::Source(source) => {
            let decided = SourceStatus::decided(decision == Decision::Approve);
            let decided = decide_source(state, source.uuid, decided, reason).await?;
            let url = source.return_url.as_deref();
            let status = decided.status.as_str();
            return next(state, url, "payment_source_uuid", decided.uuid, status).await;
        }
    };
    // The donor's browser carries no trace; the decision starts one.
    let ending = Ending {
        status,
        reason: reason.map(str::to_owned),
        value_date: None,
    };
    let done = end_pending(state, payment.uuid, ending, TraceContext::new_root()).await?;
    let finished = match done {
        Some(p) => p,
        None => test_payment(state, uuid).await?,
    };
    let (url, status) = (finished.return_url.as_deref(), finished.status.as_str());
    next(state, url, "payment_uuid", finished.uuid.clone(), status).await
}

/// Ends the pending source `uuid` as the donor decided, with the event that says so: the
/// source as it now stands.
async fn decide_source(
    state: &Parts,
    uuid: String,
    status: SourceStatus,
    reason: Option<&'static str>,
) -> Result<Source, PaymentsError> {
    let now = state.clock.unix();
    let (st, id) = (state.clone(), uuid.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                // The donor's browser carries no trace; the decision starts one.
                let trace = TraceContext::new_root();
                decide_in(tx, &st.outbox, &id, status, reason, now, &trace)
            })
        })
        .await?;
    state.outbox.committed();
    state
        .store
        .query(move |db| sources::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::not_found("Payment source"))
}

/// Back to the merchant's page, told the `status` of `uuid` (named by `key`), when the
/// merchant gave one; else the page again.
async fn next(
    state: &Parts,
    return_url: Option<&str>,
    key: &str,
    uuid: String,
    status: &str,
) -> Result<Next, PaymentsError> {
    Ok(match return_url {
        Some(url) => Next::Back(return_location(url, key, &uuid, status)),
        None => Next::Page(subject(state, uuid).await?),
    })
}

/// Test mode only: the bank has collected the direct debit `uuid`. In production the
/// reconciliation of a camt.054 file does this.
pub(crate) async fn settle_debit(
    state: &Parts,
    caller: &Caller,
    uuid: String,
    trace: TraceContext,
) -> Result<Payment, PaymentsError> {
    let payment = test_payment(state, uuid).await?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    if payment.payment_method != PaymentMethod::SepaDd {
        return Err(PaymentsError::invalid(
            "payment_uuid",
            "only a direct debit is settled",
        ));
    }
    // Collected today, as a bank's notification would say: a collected debit has its day.
    let today = state.clock.now().date().to_string();
    let ending = Ending {
        status: PaymentStatus::Succeeded,
        reason: None,
        value_date: Some(today),
    };
    let done = end_pending(state, payment.uuid.clone(), ending, trace).await?;
    done.ok_or_else(|| {
        PaymentsError::conflict(format!("the payment is {}, not pending", payment.status))
    })
}
