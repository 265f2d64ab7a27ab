//! The donor's payment page, taken in order: the payment it is for (one of a provider with a
//! part in the page, waiting for its donor), what the provider's script needs to finish it,
//! and, once the donor is back from it, the provider asked what happened, the payment ended
//! so, and the donor sent back to the merchant (`return_url`) or shown the outcome.

use std::sync::Arc;
use std::time::Duration;

use coffer_events::TraceContext;
use coffer_store::TtlCache;

use crate::command_kit::{Parts, provider_of_payment, within};
use crate::error::PaymentsError;
use crate::payments::commands::ending::end_at_provider;
use crate::payments::domain::return_location;
use crate::shared::connector::{ConnectorError, DonorPage, TEST_PROVIDER};
use crate::shared::record::{ChargeState, Payment, PaymentStatus};
use crate::shared::store as record;

/// How often one payment's page makes Coffer ask its provider, whoever opens it: the page
/// takes no token, so each opening must not be a call to the provider. What a page needs is
/// kept a minute; a donor's return asks the provider once in two seconds at most.
const PAGE_KEPT: Duration = Duration::from_secs(60);
const RETURN_EVERY: Duration = Duration::from_secs(2);
const PAGES: usize = 10_000;

/// The pages' own state, built beside the service's (lib.rs).
pub(crate) struct PageReads {
    pages: TtlCache<String, Arc<DonorPage>>,
    asked: TtlCache<String, ()>,
    /// Payments given a card a moment ago: one card per two seconds per payment, since
    /// each costs calls to the provider under the merchant's key.
    carded: TtlCache<String, ()>,
}

impl PageReads {
    pub(crate) fn new() -> Self {
        Self {
            pages: TtlCache::new(PAGES, PAGE_KEPT),
            asked: TtlCache::new(PAGES, RETURN_EVERY),
            carded: TtlCache::new(PAGES, RETURN_EVERY),
        }
    }
}

/// What the page shows.
pub(crate) enum Shown {
    /// The payment waits for its donor: the page with the provider's script.
    Waiting(Box<Payment>, Arc<DonorPage>),
    /// The payment has ended: how.
    Ended(Box<Payment>),
}

/// Where the donor goes once back from the provider's script.
pub(crate) enum Next {
    /// To the merchant's `return_url`, told how the payment stands.
    Back(String),
    /// The page again: waiting still, or ended with no `return_url`.
    Page(Shown),
}

/// The payment `uuid` as its page shows it. A payment of the test provider (which has its
/// own page), or one never sent to this page, is not found.
pub(crate) async fn show(
    (state, reads): (&Parts, &PageReads),
    uuid: String,
) -> Result<Shown, PaymentsError> {
    let payment = page_payment(state, uuid).await?;
    if payment.status != PaymentStatus::Pending {
        return Ok(Shown::Ended(Box::new(payment)));
    }
    let Some(prepared) = payment.provider_payment_id.clone() else {
        return Err(PaymentsError::not_found("Payment"));
    };
    if let Some(page) = reads.pages.get(&payment.uuid) {
        return Ok(Shown::Waiting(Box::new(payment), page));
    }
    let connector = provider_of_payment(state, &payment).await?;
    let page = within(state, connector.donor_page(&prepared))
        .await
        .map_err(|_| provider_silent())?;
    let Some(page) = page else {
        // Nothing for the donor to do there (declined, or decided meanwhile): the
        // provider says how it ended, and the page shows that.
        let trace = TraceContext::new_root();
        return match end_at_provider(state, &payment, false, trace).await? {
            Some(ended) if ended.status != PaymentStatus::Pending => {
                Ok(Shown::Ended(Box::new(ended)))
            }
            _ => Err(provider_silent()),
        };
    };
    let page = Arc::new(page);
    reads.pages.insert(payment.uuid.clone(), page.clone());
    Ok(Shown::Waiting(Box::new(payment), page))
}

/// The donor is back from the provider's script: the provider says how the payment stands
/// (a notification may have said so already), and the donor goes on.
pub(crate) async fn returned(
    (state, reads): (&Parts, &PageReads),
    uuid: String,
) -> Result<Next, PaymentsError> {
    let payment = page_payment(state, uuid.clone()).await?;
    let payment = if payment.status == PaymentStatus::Pending {
        if reads.asked.get(&payment.uuid).is_some() {
            // Asked a moment ago (a donor back within seconds from the step before): they
            // wait out the bound rather than see the step they just finished; if someone
            // asked meanwhile, the page again, without asking once more.
            tokio::time::sleep(RETURN_EVERY).await;
            if reads.asked.get(&payment.uuid).is_some() {
                return Ok(Next::Page(show((state, reads), uuid).await?));
            }
        }
        reads.asked.insert(payment.uuid.clone(), ());
        // The donor's browser carries no trace; coming back starts one.
        let trace = TraceContext::new_root();
        match end_at_provider(state, &payment, false, trace).await? {
            Some(ended) => ended,
            // Still waiting (the donor came back without finishing): the page again.
            None => return Ok(Next::Page(show((state, reads), uuid).await?)),
        }
    } else {
        payment
    };
    Ok(match &payment.return_url {
        Some(url) => Next::Back(return_location(
            url,
            "payment_uuid",
            &payment.uuid,
            payment.status.as_str(),
        )),
        None => Next::Page(Shown::Ended(Box::new(payment))),
    })
}

/// The card the donor entered, as the provider's script made a token of it: the waiting
/// payment is charged with it, once; the page then goes to the return, which reads how it
/// went (a challenge to answer, a decline, a success). A payment that has its card, or has
/// ended, is left as it is, as is a second card within two seconds.
pub(crate) async fn card_given(
    (state, reads): (&Parts, &PageReads),
    uuid: String,
    token: &str,
) -> Result<(), PaymentsError> {
    let payment = page_payment(state, uuid).await?;
    if payment.status != PaymentStatus::Pending || reads.carded.get(&payment.uuid).is_some() {
        return Ok(());
    }
    reads.carded.insert(payment.uuid.clone(), ());
    let Some(prepared) = payment.provider_payment_id.clone() else {
        return Err(PaymentsError::not_found("Payment"));
    };
    let connector = provider_of_payment(state, &payment).await?;
    // Up to three calls: the intent read, the card's PaymentMethod made, the confirmation.
    let budget = state.connector_timeout.saturating_mul(3);
    tokio::time::timeout(budget, connector.give_card(&payment.uuid, &prepared, token))
        .await
        .unwrap_or(Err(ConnectorError::Timeout))
        .map_err(|_| provider_silent())?;
    // What this instance kept of the page is the step before.
    reads.pages.remove(&payment.uuid);
    reads.asked.remove(&payment.uuid);
    Ok(())
}

/// A payment the page may show: one of a provider outside the process whose call was
/// answered (the page is where its answer sent the donor).
async fn page_payment(state: &Parts, uuid: String) -> Result<Payment, PaymentsError> {
    let payment = state
        .store
        .query(move |db| record::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::not_found("Payment"))?;
    // One still pending was sent here by its action; one that ended may have been.
    let waits_here = payment.status != PaymentStatus::Pending || payment.action.is_some();
    let sent_here = payment.payment_provider != TEST_PROVIDER
        && waits_here
        && payment.charge_state == ChargeState::Done
        && payment.provider_payment_id.is_some()
        && payment.payment_source_uuid.is_none()
        && payment.charge_attempt_uuid.is_none();
    if !sent_here {
        return Err(PaymentsError::not_found("Payment"));
    }
    Ok(payment)
}

fn provider_silent() -> PaymentsError {
    PaymentsError::ProviderSilent("the payment's provider cannot be reached; try again shortly")
}
