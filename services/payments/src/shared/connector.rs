//! A payment service provider as payments' commands see it: one trait, what a call asks
//! and what it answers. A provider is outside the process: every call may time out or fail
//! without saying whether it happened, so each carries an idempotency key the provider sees
//! (derived from the payment or refund), and an outcome that is not known is settled by
//! asking about that key (`find_charge`, `find_refund`), never by calling again with a new
//! one (docs/payments.md, "Charging"). The providers themselves are in connectors/.

use coffer_model::money::Money;
use coffer_model::validation::FieldError;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::method::Instrument;

/// The name Coffer's test provider (connectors/test_psp.rs) records on the payments,
/// sources and profiles it serves.
pub const TEST_PROVIDER: &str = "coffer_test";

#[derive(Debug)]
pub struct ChargeRequest<'a> {
    /// The provider's idempotency key: the payment's uuid.
    pub key: &'a str,
    pub amount: Money,
    pub instrument: &'a Instrument,
    /// Keep the instrument for later charges as this payment source, in the same call.
    pub store_as: Option<&'a str>,
    /// What [`Connector::prepare`] made, as recorded on the payment.
    pub prepared: Option<&'a str>,
}

/// A charge of a stored instrument (a payment source), the donor not there.
#[derive(Debug, Clone, Copy)]
pub struct StoredCharge<'a> {
    /// The instrument, by the reference `store_instrument` gave.
    pub reference: &'a str,
    /// The provider's idempotency key: the payment's uuid.
    pub key: &'a str,
    pub amount: Money,
    /// What [`Connector::prepare_stored`] made, as recorded on the payment.
    pub prepared: Option<&'a str>,
}

/// What a provider made ahead of a charge. A provider that charges in two steps (Stripe:
/// a PaymentIntent made unconfirmed, then confirmed) answers the object it made, which
/// Coffer records on the payment before it asks for the charge: a charge whose answer is
/// lost is then settled by reading that object, and an object made but never recorded was
/// never charged (the settler finds and cancels it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepared {
    /// Nothing to record: the provider charges in one call.
    Nothing,
    /// The provider's payment, made but not yet charged.
    Made(String),
    /// The provider decided already (a card refused before any charge).
    Answered(Charged),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ChargeOutcome {
    Succeeded {
        provider_payment_id: String,
    },
    Failed {
        provider_payment_id: String,
        reason: String,
    },
    /// Not decided yet: the donor must act first (`redirect` is where to send them), or the
    /// bank has still to collect the money (no redirect).
    Pending {
        provider_payment_id: String,
        redirect: Option<String>,
    },
}

/// The outcome of storing an instrument (for cards: a small verification charge, refunded
/// at once by the provider).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum StoreOutcome {
    Active {
        reference: String,
    },
    /// Kept once the donor approves at `redirect` (3-D Secure, a wallet's agreement).
    Pending {
        reference: String,
        redirect: String,
    },
    Failed {
        reason: String,
    },
}

/// A charge's outcome, with the stored instrument when one was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charged {
    pub outcome: ChargeOutcome,
    pub stored: Option<StoreOutcome>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RefundOutcome {
    Succeeded { provider_refund_id: String },
    Failed { reason: String },
}

/// What the donor does on Coffer's payment page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DonorStep {
    /// Enters the card, into the provider's own fields (a card payment asked for without
    /// card data).
    EnterCard,
    /// Answers their bank's challenge (3-D Secure).
    Authenticate,
}

/// What the donor's browser needs to finish a charge on Coffer's payment page
/// (payment_page/): the provider's script, opened with a key that may be public, and the
/// secret of the one object it may finish. The secret goes to that page and nowhere else.
pub struct DonorPage {
    pub step: DonorStep,
    /// The provider's browser script.
    pub script: String,
    /// What the page's Content-Security-Policy lets the provider's script do: load scripts,
    /// frames (the bank's challenge) and calls from these sources.
    pub script_sources: Vec<String>,
    pub frame_sources: Vec<String>,
    pub connect_sources: Vec<String>,
    pub publishable_key: String,
    pub client_secret: zeroize::Zeroizing<String>,
}

/// A call whose outcome is not known: it may or may not have happened at the provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    #[error("the provider did not answer in time")]
    Timeout,
    #[error("the provider could not be reached: {0}")]
    Unreachable(String),
}

pub type Call<'a, T> = BoxFuture<'a, Result<T, ConnectorError>>;

pub trait Connector: Send + Sync {
    fn provider(&self) -> &'static str;
    /// Why the provider would refuse to charge `amount` with `instrument` (a source keeps
    /// it with no amount), keeping it for later when `keep`, said before anything is
    /// recorded or called: each property named answers 400; none when it takes it.
    fn refuses(
        &self,
        amount: Option<Money>,
        instrument: &Instrument,
        keep: bool,
    ) -> Vec<FieldError> {
        let _ = (amount, instrument, keep);
        Vec::new()
    }
    /// Whether Coffer's own SEPA identifiers (the EndToEndId and mandate reference it writes,
    /// which bank files name) travel with this provider's direct debits. A provider that
    /// keeps its own mandates (Stripe) says no: its payer sees the provider's, and no bank
    /// file of Coffer's names the debit.
    fn own_debit_identifiers(&self) -> bool {
        true
    }
    /// Makes what the charge needs at the provider without charging (see [`Prepared`]).
    fn prepare<'a>(&'a self, request: &'a ChargeRequest<'a>) -> Call<'a, Prepared> {
        let _ = request;
        Box::pin(async { Ok(Prepared::Nothing) })
    }
    /// Charges once per key: asked again with the same key, the provider answers as it did
    /// the first time and charges nothing more.
    fn charge<'a>(&'a self, request: ChargeRequest<'a>) -> Call<'a, Charged>;
    /// Makes what a charge of a stored instrument needs at the provider without charging,
    /// as [`Connector::prepare`] does for a charge of the request's instrument.
    fn prepare_stored<'a>(&'a self, charge: &'a StoredCharge<'a>) -> Call<'a, Prepared> {
        let _ = charge;
        Box::pin(async { Ok(Prepared::Nothing) })
    }
    /// Charges a stored instrument, once per key, with the donor not there: a charge that
    /// would need them fails, and never waits.
    fn charge_stored<'a>(&'a self, charge: StoredCharge<'a>) -> Call<'a, ChargeOutcome>;
    fn store_instrument<'a>(
        &'a self,
        instrument: &'a Instrument,
        key: &'a str,
    ) -> Call<'a, StoreOutcome>;
    /// Gives back part or all of a charge, once per key.
    fn refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
        amount: Money,
    ) -> Call<'a, RefundOutcome>;
    /// What the provider knows of the charge made under `key` (with the instrument it kept,
    /// if it was asked to), `prepared` being what [`Connector::prepare`] made as the payment
    /// recorded it, `amount` the payment's; None when it never charged, and never will
    /// under this key.
    fn find_charge<'a>(
        &'a self,
        key: &'a str,
        prepared: Option<&'a str>,
        amount: Money,
    ) -> Call<'a, Option<Charged>>;
    /// What the provider knows of the refund made under `key` of the charge
    /// `provider_payment_id`.
    fn find_refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
    ) -> Call<'a, Option<RefundOutcome>>;
    /// What the donor's browser needs to finish `prepared` on Coffer's payment page; None
    /// when the provider has no part in that page (the test provider has a page of its own).
    fn donor_page<'a>(&'a self, prepared: &'a str) -> Call<'a, Option<DonorPage>> {
        let _ = prepared;
        Box::pin(async { Ok(None) })
    }
    /// Charges `prepared` (made for a card the donor enters on the page) with the card
    /// the provider's browser script took from them, as the `token` it made of it. Once
    /// only: a charge that has its card already, or has ended, is left as it is. How it
    /// went is read afterwards, like any waiting charge's ([`Connector::end_waiting`]).
    fn give_card<'a>(&'a self, key: &'a str, prepared: &'a str, token: &'a str) -> Call<'a, ()> {
        let _ = (key, prepared, token);
        Box::pin(async {
            Err(ConnectorError::Unreachable(
                "this provider takes no card from the payment page".into(),
            ))
        })
    }
    /// How a charge that waited for its donor (`prepared`, as the payment recorded it) has
    /// ended, made final at the provider: a charge that failed, or that the donor left when
    /// `give_up`, is cancelled there first, so nobody can finish it after Coffer has said it
    /// failed. None while it still waits (and not `give_up`), or the provider still decides.
    fn end_waiting<'a>(
        &'a self,
        key: &'a str,
        prepared: &'a str,
        give_up: bool,
    ) -> Call<'a, Option<ChargeOutcome>> {
        let _ = (key, prepared, give_up);
        Box::pin(async { Ok(None) })
    }
    /// Told when an outcome has been committed; the test provider may stop the process
    /// here to prove that a crash at this point loses nothing.
    fn committed(&self) {}
}
