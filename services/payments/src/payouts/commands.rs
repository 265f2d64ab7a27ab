//! Payouts' use cases: settling an account (by the daily worker or `coffer admin payouts
//! settle`), reading payouts, and recording reconciliation's match.

use std::collections::BTreeMap;
use std::sync::Arc;

use coffer_auth::Caller;
use coffer_events::catalogue::PAYOUT_CREATED;
use coffer_events::{Outbox, append};
use coffer_model::clock::Clock;
use coffer_model::paging::Paging;
use coffer_store::{Db, Store, StoreError};
use diesel::result::Error as DieselError;
use time::OffsetDateTime;

use super::domain::{self, FeeSchedule, Item, Nothing, PayoutStatus};
use super::record::Payout;
use super::store::{self, PayoutRow, Waiting};
use crate::error::PaymentsError;
use coffer_directory::account_organisation;

/// What settling needs, apart from the service's state, so that the operator's command
/// settles exactly as the service's worker does.
#[derive(Clone)]
pub struct Settler {
    pub store: Store,
    pub outbox: Outbox,
    pub clock: Arc<dyn Clock>,
    pub fees: FeeSchedule,
}

/// Which payments a settlement takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cutoff {
    /// Those made before today (UTC), once a day: the worker's rule.
    Daily,
    /// Everything succeeded until now: the operator's.
    Now,
}

#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error("no account {0} is known to payments")]
    UnknownAccount(String),
    #[error(
        "another settlement of the account ran at the same time; nothing was changed, try again"
    )]
    Raced,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] DieselError),
}

/// Pays out what the account's payments brought, one payout per currency, all in one
/// transaction with their `payout.created` events. Nothing waiting makes no payout.
pub async fn settle_account(
    settler: &Settler,
    account: String,
    cutoff: Cutoff,
) -> Result<Vec<Payout>, SettleError> {
    let now = settler.clock.now();
    let (fees, outbox) = (settler.fees, settler.outbox.clone());
    let made = settler
        .store
        .write(move |tx| settle_in(tx, &outbox, &account, cutoff, now, fees))
        .await?;
    if !made.is_empty() {
        settler.outbox.committed();
    }
    Ok(made)
}

fn settle_in(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    account: &str,
    cutoff: Cutoff,
    now: OffsetDateTime,
    fees: FeeSchedule,
) -> Result<Vec<Payout>, SettleError> {
    if account_organisation(tx, account)?.is_none() {
        return Err(SettleError::UnknownAccount(account.to_owned()));
    }
    let before = match cutoff {
        Cutoff::Daily => domain::daily_cutoff(now),
        // Within this second too: a payment of this very second is paid out now.
        Cutoff::Now => now.unix_timestamp() + 1,
    };
    let mut by_currency: BTreeMap<String, Vec<Waiting>> = BTreeMap::new();
    for waiting in store::waiting_payments(tx, account, before)? {
        by_currency
            .entry(waiting.currency.clone())
            .or_default()
            .push(waiting);
    }
    let mut made = Vec::new();
    for (currency, waiting) in by_currency {
        let refunds = store::waiting_refunds(tx, account, &currency)?;
        let payments: Vec<Item> = waiting.iter().map(|w| w.item.clone()).collect();
        let plan = match domain::plan(&payments, &refunds, &fees) {
            Ok(plan) => plan,
            Err(Nothing::Empty) => continue,
            Err(Nothing::NotPositive(net)) => {
                tracing::info!(
                    account,
                    currency,
                    net,
                    "refunds and fees exceed the day's payments; they wait for the next payout"
                );
                continue;
            }
        };
        let uuid = uuid::Uuid::new_v4();
        let organisation = waiting
            .first()
            .map(|w| w.organisation_uuid.clone())
            .unwrap_or_default();
        let row = PayoutRow {
            uuid: uuid.to_string(),
            organisation_uuid: organisation,
            account_uuid: account.to_owned(),
            currency,
            gross_value: plan.gross,
            fees_value: plan.fees,
            refunded_value: plan.refunded,
            amount_value: plan.amount,
            payment_count: i64::try_from(plan.payments.len()).unwrap_or(i64::MAX),
            reference: domain::reference(&uuid, now.date()),
            status: PayoutStatus::Pending,
            settlement_date: now.date().to_string(),
            value_date: None,
            created: now.unix_timestamp(),
            updated: now.unix_timestamp(),
        };
        if !store::insert(tx, &row, &plan.payments, &plan.refunds)? {
            return Err(SettleError::Raced);
        }
        made.push(announced(tx, outbox, uuid, row)?);
    }
    Ok(made)
}

/// The payout recorded as `row`, announced (`payout.created`) in the same transaction.
fn announced(
    tx: &mut Db<'_>,
    outbox: &Outbox,
    uuid: uuid::Uuid,
    row: PayoutRow,
) -> Result<Payout, DieselError> {
    let payout = Payout::from_row(row)?;
    let data =
        serde_json::to_value(&payout).map_err(|e| DieselError::SerializationError(Box::new(e)))?;
    let event = outbox.event(
        &PAYOUT_CREATED,
        uuid,
        payout.organisation_uuid.parse().ok(),
        payout.account_uuid.parse().ok(),
        data,
    );
    append(tx, &[event], None)?;
    Ok(payout)
}

/// The worker's pass: every account with payments from before today and no payout
/// today is settled; an account that fails is logged and tried again on the next pass.
pub async fn settle_due(settler: &Settler) -> Result<usize, StoreError> {
    let now = settler.clock.now();
    let (before, today) = (domain::daily_cutoff(now), now.date().to_string());
    let accounts = settler
        .store
        .query(move |db| store::due_accounts(db, before, &today))
        .await?;
    let mut made = 0;
    for account in accounts {
        match settle_account(settler, account.clone(), Cutoff::Daily).await {
            Ok(payouts) => made += payouts.len(),
            Err(e) => {
                tracing::warn!(account, error = %e, "settling the account failed; the next pass tries again")
            }
        }
    }
    Ok(made)
}

/// A page of payouts in their list form: of `account` (404 when the directory does not know
/// it, 403 when it is not the caller's), else of every account the caller sees.
pub(crate) async fn list(
    store: &Store,
    caller: &Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
) -> Result<Vec<Payout>, PaymentsError> {
    if let Some(account) = account {
        let key = account.to_string();
        let organisation = store
            .query(move |db| account_organisation(db, &key))
            .await?
            .ok_or(PaymentsError::not_found("Account"))?;
        caller.require_account(
            account,
            organisation.parse().map_err(PaymentsError::internal)?,
        )?;
    }
    let visible: Option<Vec<String>> = caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect());
    let account = account.map(|a| a.to_string());
    let rows = store
        .query(move |db| {
            store::list(
                db,
                account.as_deref(),
                visible.as_deref(),
                paging.offset(),
                paging.limit(),
            )
        })
        .await?;
    rows.into_iter()
        .map(|row| Payout::from_row(row).map_err(PaymentsError::internal))
        .collect()
}

/// One payout with its payments and refunds, when the caller may see its account.
pub(crate) async fn get(
    store: &Store,
    caller: &Caller,
    uuid: uuid::Uuid,
) -> Result<Payout, PaymentsError> {
    let key = uuid.to_string();
    let found = store
        .query(move |db| {
            let Some(row) = store::find(db, &key)? else {
                return Ok(None);
            };
            let payments = store::payments_of(db, &key)?;
            let refunds = store::refunds_of(db, &key)?;
            Ok(Some((row, payments, refunds)))
        })
        .await?;
    let (row, payments, refunds) = found.ok_or(PaymentsError::not_found("Payout"))?;
    let payout = Payout::from_row(row).map_err(PaymentsError::internal)?;
    let (account, organisation) = (
        payout
            .account_uuid
            .parse()
            .map_err(PaymentsError::internal)?,
        payout
            .organisation_uuid
            .parse()
            .map_err(PaymentsError::internal)?,
    );
    // 403 for another tenant's, as every object (docs/errors.md): uuids are random, so
    // the answer tells nothing a guess could use.
    caller.require_account(account, organisation)?;
    Ok(payout.with_items(payments, refunds))
}

/// Reconciliation found the payout's credit on a statement: it is matched, and its
/// payments take the credit's value date. Run in the consumer's transaction; a second
/// delivery changes nothing.
pub fn record_match(
    tx: &mut Db<'_>,
    payout: &str,
    value_date: &str,
    now: i64,
) -> Result<bool, DieselError> {
    store::mark_matched(tx, payout, value_date, now)
}

/// A payout a provider outside the process made to an account's bank (Stripe's
/// `payout.paid`), as its notification says it.
#[derive(Debug, Clone)]
pub struct PaidOutByProvider {
    pub connector_account_uuid: String,
    pub account_uuid: String,
    pub provider_payout_id: String,
    pub amount: coffer_model::money::Money,
    /// What the bank shows beside the credit.
    pub reference: String,
    /// The day the bank is to credit it (YYYY-MM-DD).
    pub settlement_date: String,
}

/// Records a provider's payout as a Coffer payout, once, and announces it as the test
/// provider's are (`payout.created`), so reconciliation matches it with the bank's credit
/// the same way. The provider does not say here which payments it paid out or what it kept
/// (Stripe's balance transactions do), so the payout names none: its gross is its amount.
/// False when it was recorded before.
pub async fn record_paid_out(
    store: &Store,
    outbox: &Outbox,
    paid: PaidOutByProvider,
    now: i64,
) -> Result<bool, PaymentsError> {
    let out = outbox.clone();
    let made = store
        .write(move |tx| {
            let uuid = uuid::Uuid::new_v4();
            if !store::claim_provider_payout(
                tx,
                &paid.connector_account_uuid,
                &paid.provider_payout_id,
                &uuid.to_string(),
            )? {
                return Ok::<_, PaymentsError>(false);
            }
            // An account this service has not heard of yet: answered 503 with nothing kept,
            // so the provider's retry records it once the account is known.
            let Some(organisation) = account_organisation(tx, &paid.account_uuid)? else {
                return Err(PaymentsError::ProviderSilent(
                    "the payout's account is not known here yet; try again shortly",
                ));
            };
            let zero = 0;
            let row = PayoutRow {
                uuid: uuid.to_string(),
                organisation_uuid: organisation,
                account_uuid: paid.account_uuid.clone(),
                currency: paid.amount.currency.code().to_owned(),
                gross_value: paid.amount.value,
                fees_value: zero,
                refunded_value: zero,
                amount_value: paid.amount.value,
                payment_count: zero,
                reference: paid.reference.clone(),
                status: PayoutStatus::Pending,
                settlement_date: paid.settlement_date.clone(),
                value_date: None,
                created: now,
                updated: now,
            };
            store::insert(tx, &row, &[], &[])?;
            announced(tx, &out, uuid, row)?;
            Ok(true)
        })
        .await?;
    if made {
        outbox.committed();
    }
    Ok(made)
}
