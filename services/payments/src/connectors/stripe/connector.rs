//! Stripe behind shared/connector.rs's trait: one connector account's calls, in two steps
//! per charge. `prepare` makes the card's PaymentMethod and a PaymentIntent left
//! unconfirmed, with metadata naming Coffer's payment; the command records the intent's id
//! on the payment; `charge` confirms it. So an intent is confirmed only once its id is
//! recorded, at most one intent per payment is ever confirmed, and an answer that never
//! arrives is settled by reading that intent (`find_charge`), or, when no id was recorded,
//! by finding the payment's intents by their metadata and cancelling the unconfirmed ones.

use coffer_model::money::Money;
use coffer_model::validation::FieldError;

use super::client::{CardDetails, DebitDetails, NewIntent, StripeClient, StripeError};
use super::mapping::{self, Reading, Refusal, refund_outcome, same_money};
use super::objects::{IntentStatus, PaymentIntent};
use super::page_access::PageAccess;
use super::test_server;
use crate::shared::connector::{
    Call, ChargeOutcome, ChargeRequest, Charged, Connector, ConnectorError, DonorPage, Prepared,
    RefundOutcome, StoreOutcome, StoredCharge,
};
use crate::shared::method::{Debit, Instrument};

/// The provider's name, as profiles, payments and sources record it.
pub const STRIPE: &str = "stripe";
/// Pages of 100 read when looking for what an unheard call left behind, newest first: an
/// unheard create is looked for within the settler's delay of it, so it is among the
/// newest objects of the account unless that account made more than this many meanwhile.
const SEARCH_PAGES: usize = 20;

pub struct StripeConnector {
    pub(super) client: StripeClient,
    /// None without a publishable key: a charge that needs the donor then fails.
    pub(super) page: Option<PageAccess>,
    /// A live account charges real cards.
    live: bool,
    /// Whether card numbers may be sent from Coffer to a live account
    /// (`payments.raw_card_data`; Stripe allows it only to accounts it approved, PCI SAQ D).
    raw_card_data: bool,
    /// The API is a test server, whose gaps test_server.rs bridges.
    pub(super) test_server: bool,
}

impl StripeConnector {
    pub fn new(
        client: StripeClient,
        live: bool,
        raw_card_data: bool,
        page: Option<PageAccess>,
    ) -> Self {
        let test_server = test_server::is_test_server(client.base(), live);
        Self {
            client,
            page,
            live,
            raw_card_data,
            test_server,
        }
    }

    /// The payment's PaymentIntent, made unconfirmed with `method` (of `method_type`, kept
    /// under `customer` for a payment source), or with none when the donor gives the card
    /// on the payment page (`give_card`).
    pub(super) async fn prepare_intent(
        &self,
        key: &str,
        money: Money,
        method_type: &str,
        method: Option<&str>,
        customer: Option<&str>,
    ) -> Result<Prepared, ConnectorError> {
        let Ok(amount) = mapping::stripe_amount(&money) else {
            // Refused before anything was recorded (`refuses`); never sent if it slips by.
            return Ok(answered(ChargeOutcome::Failed {
                provider_payment_id: String::new(),
                reason: "amount_not_accepted".into(),
            }));
        };
        let currency = money.currency.code().to_ascii_lowercase();
        let intent = NewIntent {
            amount,
            currency: &currency,
            payment_method: method,
            payment_method_type: method_type,
            customer,
            payment_uuid: key,
        };
        match self
            .client
            .create_intent(&intent, &format!("coffer-{key}-create"))
            .await
        {
            Ok(made) => Ok(Prepared::Made(made.id)),
            Err(e) => refused_before_charge(e),
        }
    }

    /// The card sent with the request, as a PaymentMethod.
    pub(super) async fn card_method(
        &self,
        key: &str,
        card: &crate::shared::card::Card,
    ) -> Result<String, StripeError> {
        let details = CardDetails {
            number: &card.number,
            exp_month: card.expiry_month,
            exp_year: card.expiry_year,
            cvc: Some(&card.cvc),
            cardholder: card.cardholder.as_deref(),
        };
        let method = self
            .client
            .create_card_method(&details, &format!("coffer-{key}-method"))
            .await?;
        Ok(method.id)
    }

    /// The bank account of a direct debit, as a PaymentMethod.
    pub(super) async fn debit_method(
        &self,
        key: &str,
        debit: &Debit,
    ) -> Result<String, StripeError> {
        let details = DebitDetails {
            iban: debit.iban.as_str(),
            holder: &debit.holder,
            // Refused before anything was recorded without one (`refuses`).
            email: debit.email.as_deref().unwrap_or_default(),
        };
        let method = self
            .client
            .create_debit_method(&details, &format!("coffer-{key}-method"))
            .await?;
        Ok(method.id)
    }

    /// The outcome of an intent that was confirmed: one that waits for a donor Coffer cannot
    /// send anywhere is cancelled and fails; one the bank still decides is pending; Err for
    /// an intent nobody confirmed.
    async fn decided(
        &self,
        key: &str,
        intent: &PaymentIntent,
        donor: Donor,
    ) -> Result<ChargeOutcome, ConnectorError> {
        let reading = match (mapping::reading(intent), donor) {
            // Sent to the bank's own page: no one is there to go.
            (
                Reading::Decided(ChargeOutcome::Pending {
                    redirect: Some(_), ..
                }),
                Donor::Away,
            ) => Reading::NeedsDonor,
            (reading, _) => reading,
        };
        match reading {
            Reading::Decided(outcome) => Ok(outcome),
            // Coffer's payment page finishes it in the donor's browser, with the account's
            // publishable key; the payment waits there (payment_page/).
            Reading::NeedsDonor if self.page.is_some() && donor == Donor::Present => {
                Ok(ChargeOutcome::Pending {
                    provider_payment_id: intent.id.clone(),
                    redirect: self.page.as_ref().map(|p| p.url_of(key)),
                })
            }
            // Nobody to send there (no page, or a charge without the donor, which never
            // waits): closed, and failed with a reason dunning shows.
            Reading::NeedsDonor => {
                self.cancel_unconfirmed(key, &intent.id).await?;
                Ok(ChargeOutcome::Failed {
                    provider_payment_id: intent.id.clone(),
                    reason: "authentication_required".into(),
                })
            }
            // The bank decides (a direct debit takes days): pending, read again later
            // (workers/charges.rs asks about payments pending with the bank).
            Reading::Deciding => Ok(ChargeOutcome::Pending {
                provider_payment_id: intent.id.clone(),
                redirect: None,
            }),
            Reading::Unconfirmed => Err(ConnectorError::Unreachable(
                "the PaymentIntent is not confirmed".into(),
            )),
        }
    }

    /// The outcome of the confirmation of intent `id`, as Stripe answered it.
    pub(super) async fn confirmed(
        &self,
        key: &str,
        id: &str,
        confirmed: Result<PaymentIntent, StripeError>,
        donor: Donor,
    ) -> Result<ChargeOutcome, ConnectorError> {
        match confirmed {
            Ok(intent) => self.decided(key, &intent, donor).await,
            Err(StripeError::Refused { status, error }) => match mapping::refusal(status, &error) {
                Refusal::Declined(reason) => Ok(ChargeOutcome::Failed {
                    provider_payment_id: id.to_owned(),
                    reason,
                }),
                Refusal::Rejected(code) => {
                    tracing::warn!(code = %code, "Stripe refused a confirmation Coffer made");
                    Ok(ChargeOutcome::Failed {
                        provider_payment_id: id.to_owned(),
                        reason: code,
                    })
                }
                Refusal::Unknown => Err(unknown(StripeError::Refused { status, error })),
            },
            Err(e) => Err(unknown(e)),
        }
    }

    /// Cancels an intent that was never confirmed, or waits for a donor Coffer cannot send
    /// there: after this no one can charge it. Err while that is not known (it may have
    /// been confirmed meanwhile).
    async fn cancel_unconfirmed(&self, key: &str, id: &str) -> Result<(), ConnectorError> {
        match self
            .client
            .cancel_intent(id, &format!("coffer-{key}-cancel-{id}"))
            .await
        {
            Ok(_) => Ok(()),
            Err(e) => Err(unknown(e)),
        }
    }
}

/// Whether the payer is there to act on a charge (3-D Secure): on a payment they asked for,
/// yes; on a charge of their payment source (billing's), no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Donor {
    Present,
    Away,
}

/// A call's failure as the connector's: Stripe's answer, when it is one, says what it did.
pub(super) fn unknown(e: StripeError) -> ConnectorError {
    match e {
        StripeError::Timeout => ConnectorError::Timeout,
        other => ConnectorError::Unreachable(other.to_string()),
    }
}

pub(super) fn answered(outcome: ChargeOutcome) -> Prepared {
    Prepared::Answered(Charged {
        outcome,
        stored: None,
    })
}

/// A refusal before any charge: a decline or a rejection fails the payment (nothing was
/// charged), anything else leaves the outcome to the settler.
fn refused_before_charge(e: StripeError) -> Result<Prepared, ConnectorError> {
    let StripeError::Refused { status, error } = &e else {
        return Err(unknown(e));
    };
    let reason = match mapping::refusal(*status, error) {
        Refusal::Unknown => return Err(unknown(e)),
        Refusal::Declined(reason) => reason,
        Refusal::Rejected(code) => {
            tracing::warn!(code = %code, "Stripe refused a request Coffer made before a charge");
            code
        }
    };
    Ok(answered(ChargeOutcome::Failed {
        provider_payment_id: String::new(),
        reason,
    }))
}

const NOT_YET: &str = "a payment through Stripe does not keep its instrument yet: keep it with \
     POST /payment-sources, then charge the source";

impl Connector for StripeConnector {
    fn provider(&self) -> &'static str {
        STRIPE
    }

    /// Stripe makes each debit's mandate, and its reference is the one the payer sees.
    fn own_debit_identifiers(&self) -> bool {
        false
    }

    fn refuses(
        &self,
        amount: Option<Money>,
        instrument: &Instrument,
        keep: bool,
    ) -> Vec<FieldError> {
        let mut refused = Vec::new();
        // A source is kept alone (no amount); kept with a payment's charge, not yet.
        if keep && amount.is_some() {
            refused.push(FieldError::not_valid("create_payment_source", NOT_YET));
        }
        if keep && matches!(instrument, Instrument::DonorCard) {
            refused.push(FieldError::not_null("payment_information"));
        }
        match instrument {
            Instrument::Card(_) if self.live && !self.raw_card_data => {
                refused.push(FieldError::not_valid(
                    "payment_information",
                    "a live Stripe profile takes no card numbers (Stripe allows them only to \
                     accounts it approved, payments.raw_card_data): leave payment_information \
                     out, and the donor enters the card on the page action.url names",
                ));
            }
            Instrument::DonorCard if self.page.is_none() => {
                refused.push(FieldError::not_valid(
                    "payment_information",
                    "is required: this profile's Stripe account has no publishable key, so \
                     there is no page for the donor to enter the card on",
                ));
            }
            Instrument::Card(_) | Instrument::DonorCard => {}
            Instrument::SepaDirectDebit(debit) => {
                refused.extend(mapping::debit_refused(amount, debit.email.as_deref()));
            }
            Instrument::Wallet => {
                refused.push(FieldError::not_valid(
                    "payment_method",
                    "this profile's Stripe account takes cards and SEPA direct debits only",
                ));
            }
        }
        if let Some(Err(why)) = amount.map(|amount| mapping::stripe_amount(&amount)) {
            refused.push(FieldError::not_valid("amount", why.to_string()));
        }
        refused
    }

    fn prepare<'a>(&'a self, request: &'a ChargeRequest<'a>) -> Call<'a, Prepared> {
        Box::pin(async move {
            let (key, money) = (request.key, request.amount);
            if mapping::stripe_amount(&money).is_err() {
                return self.prepare_intent(key, money, "card", None, None).await;
            }
            match request.instrument {
                Instrument::Card(card) => match self.card_method(key, card).await {
                    Ok(method) => {
                        self.prepare_intent(key, money, "card", Some(&method), None)
                            .await
                    }
                    Err(e) => refused_before_charge(e),
                },
                Instrument::DonorCard => self.prepare_intent(key, money, "card", None, None).await,
                Instrument::SepaDirectDebit(debit) => match self.debit_method(key, debit).await {
                    Ok(method) => {
                        self.prepare_intent(key, money, "sepa_debit", Some(&method), None)
                            .await
                    }
                    Err(e) => refused_before_charge(e),
                },
                Instrument::Wallet => Ok(answered(ChargeOutcome::Failed {
                    provider_payment_id: String::new(),
                    reason: "method_not_supported".into(),
                })),
            }
        })
    }

    fn charge<'a>(&'a self, request: ChargeRequest<'a>) -> Call<'a, Charged> {
        Box::pin(async move {
            let Some(id) = request.prepared else {
                return Err(ConnectorError::Unreachable(
                    "no PaymentIntent was prepared for this charge".into(),
                ));
            };
            if matches!(request.instrument, Instrument::DonorCard) {
                // Nothing to confirm yet: the donor brings the card on the page.
                let outcome = match &self.page {
                    Some(page) => ChargeOutcome::Pending {
                        provider_payment_id: id.to_owned(),
                        redirect: Some(page.url_of(request.key)),
                    },
                    // Refused before anything was recorded (`refuses`).
                    None => {
                        self.cancel_unconfirmed(request.key, id).await?;
                        ChargeOutcome::Failed {
                            provider_payment_id: id.to_owned(),
                            reason: "payment_information_missing".into(),
                        }
                    }
                };
                return Ok(Charged {
                    outcome,
                    stored: None,
                });
            }
            let key = format!("coffer-{}-confirm", request.key);
            let confirmed = match request.instrument {
                // Stripe requires the mandate; a test server refuses it (test_server.rs).
                Instrument::SepaDirectDebit(_) => {
                    self.client.confirm_debit(id, &key, !self.test_server).await
                }
                _ => self.client.confirm_intent(id, &key, false).await,
            };
            let outcome = self
                .confirmed(request.key, id, confirmed, Donor::Present)
                .await?;
            Ok(Charged {
                outcome,
                stored: None,
            })
        })
    }

    fn prepare_stored<'a>(&'a self, charge: &'a StoredCharge<'a>) -> Call<'a, Prepared> {
        Box::pin(self.prepare_source_charge(charge))
    }

    fn charge_stored<'a>(&'a self, charge: StoredCharge<'a>) -> Call<'a, ChargeOutcome> {
        Box::pin(self.charge_source(charge))
    }

    fn store_instrument<'a>(
        &'a self,
        instrument: &'a Instrument,
        key: &'a str,
    ) -> Call<'a, StoreOutcome> {
        Box::pin(self.keep_instrument(instrument, key))
    }

    fn refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
        amount: Money,
    ) -> Call<'a, RefundOutcome> {
        Box::pin(async move {
            let idempotency = format!("coffer-{key}-refund");
            match self
                .client
                .refund(provider_payment_id, amount.value, key, &idempotency)
                .await
            {
                Ok(refund) => Ok(refund_outcome(&refund)),
                Err(StripeError::Refused { status, error }) => {
                    match mapping::refusal(status, &error) {
                        Refusal::Unknown => Err(unknown(StripeError::Refused { status, error })),
                        Refusal::Declined(reason) | Refusal::Rejected(reason) => {
                            Ok(RefundOutcome::Failed { reason })
                        }
                    }
                }
                Err(e) => Err(unknown(e)),
            }
        })
    }

    fn find_charge<'a>(
        &'a self,
        key: &'a str,
        prepared: Option<&'a str>,
        amount: Money,
    ) -> Call<'a, Option<Charged>> {
        Box::pin(async move {
            let found = match prepared {
                Some(id) => vec![self.client.intent(id).await.map_err(unknown)?],
                None => self
                    .client
                    .intents_of_payment(key, SEARCH_PAGES)
                    .await
                    .map_err(unknown)?,
            };
            let mut charged = None;
            let mut cancelled = None;
            for intent in &found {
                if !same_money(intent, amount) {
                    // Coffer makes a payment's intents with its amount; another names the
                    // payment without being its charge, and is not taken for it.
                    tracing::error!(payment = %key, intent = %intent.id, "a PaymentIntent names this payment with another amount or currency; not taken as its charge");
                    continue;
                }
                match mapping::reading(intent) {
                    Reading::Unconfirmed => {
                        self.cancel_unconfirmed(key, &intent.id).await?;
                        cancelled.get_or_insert_with(|| intent.id.clone());
                    }
                    // Two confirmed for one payment would be a double charge, which the
                    // steps above never make; said loudly if it is ever found.
                    _ if charged.is_some() => {
                        tracing::error!(payment = %key, intent = %intent.id, "a second confirmed PaymentIntent names this payment; only the first is taken");
                    }
                    _ => {
                        // Only a payment source's charge names a Customer: its donor is away.
                        let donor = if intent.customer.is_some() {
                            Donor::Away
                        } else {
                            Donor::Present
                        };
                        charged = Some(self.decided(key, intent, donor).await?);
                    }
                }
            }
            // Nothing charged: the payment fails, and keeps the intent that was cancelled.
            let failed = cancelled.map(|id| ChargeOutcome::Failed {
                provider_payment_id: id,
                reason: "provider_unreachable".into(),
            });
            Ok(charged.or(failed).map(|outcome| Charged {
                outcome,
                stored: None,
            }))
        })
    }

    fn find_refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
    ) -> Call<'a, Option<RefundOutcome>> {
        Box::pin(async move {
            let found = self
                .client
                .refunds_of(provider_payment_id, key, SEARCH_PAGES)
                .await
                .map_err(unknown)?;
            Ok(found.first().map(refund_outcome))
        })
    }

    fn end_waiting<'a>(
        &'a self,
        key: &'a str,
        prepared: &'a str,
        give_up: bool,
    ) -> Call<'a, Option<ChargeOutcome>> {
        Box::pin(async move {
            let intent = self.client.intent(prepared).await.map_err(unknown)?;
            let reason = match (mapping::reading(&intent), give_up) {
                (Reading::Decided(outcome @ ChargeOutcome::Succeeded { .. }), _) => {
                    return Ok(Some(outcome));
                }
                // Cancelled already: nobody can finish it.
                (Reading::Decided(outcome @ ChargeOutcome::Failed { .. }), _)
                    if intent.status == IntentStatus::Canceled =>
                {
                    return Ok(Some(outcome));
                }
                // A failed challenge leaves the intent open to another try with its client
                // secret: it is closed before the payment is said to have failed.
                (Reading::Decided(ChargeOutcome::Failed { reason, .. }), _) => reason,
                (
                    Reading::NeedsDonor
                    | Reading::Unconfirmed
                    | Reading::Decided(ChargeOutcome::Pending { .. }),
                    true,
                ) => "authentication_abandoned".to_owned(),
                _ => return Ok(None),
            };
            // Err when Stripe refuses: the donor may have finished meanwhile, which the
            // next reading says.
            let cancelled = self
                .client
                // A key of the state read: a cancel Stripe refused (the donor was finishing)
                // is not answered the same way again once the intent has moved on.
                .cancel_intent(prepared, &format!("coffer-{key}-end-{:?}", intent.status))
                .await
                .map_err(unknown)?;
            if cancelled.status != IntentStatus::Canceled {
                return Err(ConnectorError::Unreachable(
                    "Stripe did not cancel the PaymentIntent".into(),
                ));
            }
            Ok(Some(ChargeOutcome::Failed {
                provider_payment_id: prepared.to_owned(),
                reason,
            }))
        })
    }

    fn give_card<'a>(&'a self, key: &'a str, prepared: &'a str, token: &'a str) -> Call<'a, ()> {
        Box::pin(self.card_from_page(key, prepared, token))
    }

    fn donor_page<'a>(&'a self, prepared: &'a str) -> Call<'a, Option<DonorPage>> {
        Box::pin(self.page_of(prepared))
    }
}
