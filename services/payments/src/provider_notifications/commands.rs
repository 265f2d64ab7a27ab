//! A provider's notification to a connector account's endpoint, taken in order: the
//! connector account it was sent to, its signature by that account's webhook secrets, the
//! event read, its id not seen before, and then what it says applied through the same
//! commands as a direct answer (payments/commands/charge.rs `record`, ending.rs). The event
//! is remembered only once it is applied, so a failure on the way leaves it to the
//! provider's retry, and a retry of one applied is answered without being applied again.

use coffer_events::TraceContext;
use coffer_model::currency::Currency;
use coffer_model::money::Money;

use super::domain::{Kept, Standing, Verdict, Word, verdict};
use super::store;
use crate::command_kit::Parts;
use crate::connector_accounts::domain::{Mode, Provider};
use crate::connector_accounts::store::{self as accounts, ConnectorAccountRow};
use crate::connectors::stripe::connector::STRIPE;
use crate::connectors::stripe::mapping::{self, same_money};
use crate::connectors::stripe::notice::{self, About, Notice};
use crate::connectors::stripe::objects::{Dispute, PaymentIntent, Payout as StripePayout};
use crate::connectors::stripe::signature;
use crate::disputes::commands::record_said;
use crate::disputes::domain::Said;
use crate::error::PaymentsError;
use crate::payments::commands::ChargeBatches;
use crate::payments::commands::charge::record;
use crate::payments::commands::ending::{Ending, end_at_provider, end_pending};
use crate::payouts::commands::{PaidOutByProvider, record_paid_out};
use crate::shared::connector::ChargeOutcome;
use crate::shared::profile_store;
use crate::shared::record::{Payment, PaymentStatus};
use crate::shared::store as payments;

/// What became of a notification the provider is told was received (2xx).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// What it said is recorded.
    Applied,
    /// Received and applied before.
    Duplicate,
    /// Changes nothing; remembered as seen all the same.
    Kept(Kept),
}

impl Received {
    pub fn as_str(self) -> &'static str {
        match self {
            Received::Applied => "applied",
            Received::Duplicate => "duplicate",
            Received::Kept(_) => "kept",
        }
    }

    /// What the metrics count it as, and the sender is told: why one kept changed nothing.
    pub fn label(self) -> &'static str {
        match self {
            Received::Kept(why) => why.as_str(),
            other => other.as_str(),
        }
    }
}

/// A Stripe notification `body`, signed `signature`, sent to the endpoint of the connector
/// account `connector_account`.
pub(crate) async fn receive_stripe(
    (state, batches): (&Parts, &ChargeBatches),
    connector_account: String,
    signature: Option<&str>,
    body: &[u8],
    trace: &TraceContext,
) -> Result<Received, PaymentsError> {
    let counted = |outcome: &str| {
        state
            .connectors
            .metrics()
            .notifications
            .with_label_values(&[STRIPE, outcome])
            .inc();
    };
    let received = async {
        // What costs nothing first: most forgeries end here, before any lookup.
        let signed = signature::read_header(signature, state.clock.unix())
            .map_err(|why| Refusal::Signature(why.as_str()))?;
        let row = stripe_account(state, connector_account).await?;
        let opened = state.connectors.webhook_secrets(&row).map_err(|e| {
            tracing::error!(connector_account = %row.uuid, error = %e, "a connector account's webhook secrets cannot be opened");
            PaymentsError::ProviderSilent("the connector account cannot be opened now")
        })?;
        if opened.is_empty() {
            return Err(Refusal::NoSecret.into());
        }
        let secrets: Vec<&[u8]> = opened.iter().map(|s| s.as_slice()).collect();
        signed
            .made_by(body, &secrets)
            .map_err(|why| Refusal::Signature(why.as_str()))?;
        let notice = notice::read(body).map_err(|part| Refusal::Unreadable(part.0))?;
        apply((state, batches), &row, notice, trace).await
    };
    match received.await {
        Ok(received) => {
            counted(received.label());
            Ok(received)
        }
        Err(Failed::Refused(refusal)) => {
            counted(refusal.label());
            Err(refusal.into_error())
        }
        Err(Failed::Other(e)) => {
            // Not remembered: the provider's retry applies it.
            counted("failed");
            Err(e)
        }
    }
}

/// Why a notification is refused (400, or 404 for an endpoint nobody has); the provider
/// sees it, and the metrics count it.
enum Refusal {
    UnknownAccount,
    NoSecret,
    Signature(&'static str),
    Unreadable(&'static str),
}

impl Refusal {
    fn label(&self) -> &'static str {
        match self {
            Refusal::UnknownAccount => "unknown_account",
            Refusal::NoSecret => "no_secret",
            Refusal::Signature(why) => why,
            Refusal::Unreadable(_) => "unreadable",
        }
    }

    fn into_error(self) -> PaymentsError {
        match self {
            Refusal::UnknownAccount => PaymentsError::not_found("Connector account"),
            Refusal::NoSecret => PaymentsError::Refused(
                "the connector account has no webhook secret to check notifications with (coffer admin connector-account set)".into(),
            ),
            Refusal::Signature(why) => PaymentsError::invalid(
                "Stripe-Signature",
                format!("the signature does not verify ({why})"),
            ),
            Refusal::Unreadable(part) => {
                PaymentsError::invalid(part, "is not what a Stripe event holds")
            }
        }
    }
}

enum Failed {
    Refused(Refusal),
    Other(PaymentsError),
}

impl From<Refusal> for Failed {
    fn from(r: Refusal) -> Self {
        Failed::Refused(r)
    }
}

impl From<PaymentsError> for Failed {
    fn from(e: PaymentsError) -> Self {
        Failed::Other(e)
    }
}

impl From<coffer_store::StoreError> for Failed {
    fn from(e: coffer_store::StoreError) -> Self {
        Failed::Other(e.into())
    }
}

/// The Stripe connector account `uuid`, whoever's it is: the endpoint's path names it, and
/// its secrets prove the sender.
async fn stripe_account(state: &Parts, uuid: String) -> Result<ConnectorAccountRow, Failed> {
    let row = state
        .store
        .query(move |db| accounts::find_by_uuid(db, &uuid))
        .await?;
    match row {
        Some(row) if row.provider == Provider::Stripe => Ok(row),
        _ => Err(Refusal::UnknownAccount.into()),
    }
}

/// Applies a verified notice once per event id.
async fn apply(
    (state, batches): (&Parts, &ChargeBatches),
    row: &ConnectorAccountRow,
    notice: Notice,
    trace: &TraceContext,
) -> Result<Received, Failed> {
    let (account, id) = (row.uuid.clone(), notice.id.clone());
    if state
        .store
        .query(move |db| store::seen(db, &account, &id))
        .await?
    {
        return Ok(Received::Duplicate);
    }
    let received = if notice.live != (row.mode == Mode::Live) {
        // A test event sent to a live account's endpoint, or the reverse: Stripe keeps
        // test and live apart, so this is a misconfigured endpoint; nothing is taken.
        tracing::warn!(connector_account = %row.uuid, event = %notice.id, "a notification of the other mode was sent to this connector account");
        Received::Kept(Kept::OtherMode)
    } else {
        match notice.about {
            About::Charge {
                payment_uuid,
                intent,
                outcome,
            } => {
                let payment = payment_of(state, row, payment_uuid).await?;
                match payment {
                    Some(payment) => {
                        let said = (intent.id.as_str(), intent.as_ref(), &outcome);
                        decide((state, batches), row, payment, said, &notice.id, trace).await?
                    }
                    None => Received::Kept(Kept::NotThePayments),
                }
            }
            About::Dispute { dispute, at } => disputed(state, row, &dispute, at, trace).await?,
            About::PaidOut(payout) => paid_out(state, row, &payout).await?,
            About::Nothing => Received::Kept(Kept::NotActedOn),
        }
    };
    let (account, now) = (row.uuid.clone(), state.clock.unix());
    let (id, kind) = (notice.id, notice.kind);
    let first = state
        .store
        .write(move |db| {
            store::remember(db, &account, &id, &kind, now).map_err(coffer_store::StoreError::from)
        })
        .await?;
    // Two deliveries of one event at once: both applied what they could, which is the same
    // and recorded once; the second is told it was a duplicate.
    Ok(if first { received } else { Received::Duplicate })
}

/// A dispute of one of this connector account's payments, recorded on it (disputes/),
/// never moved back by a late event.
async fn disputed(
    state: &Parts,
    row: &ConnectorAccountRow,
    dispute: &Dispute,
    at: i64,
    trace: &TraceContext,
) -> Result<Received, Failed> {
    let Some(intent) = dispute.payment_intent.clone() else {
        return Ok(Received::Kept(Kept::NotThePayments));
    };
    let account = row.account_uuid.clone();
    let found = state
        .store
        .query(move |db| payments::find_by_provider_payment_id(db, &account, STRIPE, &intent))
        .await?;
    let payment = match found {
        Some(uuid) => payment_of(state, row, uuid).await?,
        None => None,
    };
    let Some(payment) = payment else {
        return Ok(Received::Kept(Kept::NotThePayments));
    };
    // In the payment's currency, in Stripe's units of it; any other is not its dispute.
    let amount = match dispute_amount(dispute, &payment) {
        Some(amount) => amount,
        None => return Ok(Received::Kept(Kept::NotThePayments)),
    };
    let said = Said {
        provider_dispute_id: dispute.id.clone(),
        amount,
        reason: dispute.reason.clone(),
        status: dispute.status.clone(),
        at,
    };
    Ok(
        if record_said(state, &row.uuid, &payment, said, trace).await? {
            Received::Applied
        } else {
            Received::Kept(Kept::AlreadyRecorded)
        },
    )
}

/// A payout of the connector account's balance to its account's bank, recorded once as a
/// Coffer payout (payouts/), for reconciliation to match with the bank's credit.
async fn paid_out(
    state: &Parts,
    row: &ConnectorAccountRow,
    payout: &StripePayout,
) -> Result<Received, Failed> {
    let currency = payout.currency.to_ascii_uppercase();
    let amount = Currency::parse(&currency)
        .ok()
        .and_then(|c| Money::new(payout.amount, c).ok())
        // Stripe's unit must be Coffer's minor unit (mapping::stripe_amount).
        .filter(|m| mapping::stripe_amount(m).is_ok());
    let (Some(amount), Some(day)) = (amount, day_of(payout.arrival_date)) else {
        tracing::warn!(connector_account = %row.uuid, payout = %payout.id, "a payout Coffer cannot read the amount or day of");
        return Ok(Received::Kept(Kept::NotActedOn));
    };
    let paid = PaidOutByProvider {
        connector_account_uuid: row.uuid.clone(),
        account_uuid: row.account_uuid.clone(),
        provider_payout_id: payout.id.clone(),
        amount,
        // What the bank shows: the payout's own descriptor, else its id.
        reference: payout
            .statement_descriptor
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| payout.id.clone()),
        settlement_date: day,
    };
    let made = record_paid_out(&state.store, &state.outbox, paid, state.clock.unix()).await?;
    Ok(if made {
        Received::Applied
    } else {
        Received::Kept(Kept::AlreadyRecorded)
    })
}

/// The UTC day of `unix`, as YYYY-MM-DD.
fn day_of(unix: i64) -> Option<String> {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .map(|t| t.date().to_string())
}

/// The disputed amount as Coffer's money, when it is in the payment's currency.
fn dispute_amount(dispute: &Dispute, payment: &Payment) -> Option<Money> {
    let currency = payment.amount.currency;
    let same = dispute.currency.eq_ignore_ascii_case(currency.code());
    // Stripe's unit is Coffer's minor unit for every currency Coffer charges through it
    // (mapping::stripe_amount).
    (same && mapping::stripe_amount(&payment.amount).is_ok())
        .then(|| Money::new(dispute.amount, currency).ok())
        .flatten()
}

/// The payment `uuid` when this connector account charged it: the account's own payment,
/// made through Stripe under a profile that names this connector account. Any other is
/// not this endpoint's to change, whatever the event's metadata says.
async fn payment_of(
    state: &Parts,
    row: &ConnectorAccountRow,
    uuid: String,
) -> Result<Option<Payment>, Failed> {
    let Some(payment) = state
        .store
        .query(move |db| payments::find(db, &uuid))
        .await?
    else {
        return Ok(None);
    };
    if payment.account_uuid != row.account_uuid || payment.payment_provider != STRIPE {
        return Ok(None);
    }
    let (account, name) = (payment.account_uuid.clone(), payment.profile.clone());
    let profile = state
        .store
        .query(move |db| profile_store::find_by_name(db, &account, &name))
        .await?;
    let served = profile.is_some_and(|p| p.connector_account_uuid.as_deref() == Some(&row.uuid));
    Ok(served.then_some(payment))
}

/// What the provider said (its object's id, the object, the outcome) done to `payment`.
/// When the payment moved between the read and the write (its call answered, the settler),
/// it is read once more and judged again, so a word that still applies is not lost.
async fn decide(
    (state, batches): (&Parts, &ChargeBatches),
    row: &ConnectorAccountRow,
    mut payment: Payment,
    (id, intent, outcome): (&str, &PaymentIntent, &ChargeOutcome),
    event: &str,
    trace: &TraceContext,
) -> Result<Received, Failed> {
    for _ in 0..2 {
        let word = Word {
            provider_payment_id: id,
            same_money: same_money(intent, payment.amount),
            outcome,
        };
        let done = match verdict(Standing::of(&payment), &word) {
            Verdict::Answer(charged) => {
                let parts = (state, batches);
                record(parts, &payment.uuid, charged, None, trace)
                    .await?
                    .is_some()
            }
            // A failed challenge leaves the charge open to another try at the provider: it
            // is closed there before the payment is said to have failed.
            Verdict::End {
                status: PaymentStatus::Failed,
                ..
            } => match end_at_provider(state, &payment, false, trace.clone()).await? {
                Some(ended) if ended.status != PaymentStatus::Pending => true,
                // The donor is trying again at the provider: its next word decides.
                _ => return Ok(Received::Kept(Kept::Undecided)),
            },
            Verdict::End { status, reason } => {
                let ending = Ending {
                    status,
                    reason,
                    value_date: None,
                };
                let uuid = payment.uuid.clone();
                end_pending(state, uuid, ending, trace.clone())
                    .await?
                    .is_some()
            }
            Verdict::Keep(Kept::Disagrees) => {
                tracing::error!(payment = %payment.uuid, event = %event, status = %payment.status, "the provider's notification disagrees with how the payment ended; it is kept as it is");
                return Ok(Received::Kept(Kept::Disagrees));
            }
            Verdict::Keep(kept) => return Ok(Received::Kept(kept)),
        };
        if done {
            return Ok(Received::Applied);
        }
        match payment_of(state, row, payment.uuid.clone()).await? {
            Some(fresh) => payment = fresh,
            None => break,
        }
    }
    Ok(Received::Kept(Kept::AlreadyRecorded))
}
