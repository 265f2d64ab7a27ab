//! Payment service providers behind one trait. A connector turns a charge into the
//! provider's outcome; the mapping is pure, so a real provider's HTTP client can sit in a
//! module of its own beside its mapping.

pub mod test_psp;

use coffer_model::money::Money;

use crate::payments::card::Card;

/// What is being charged.
#[derive(Debug, Clone)]
pub enum Instrument {
    Card(Card),
    /// TWINT, PayPal: the donor approves at the provider.
    Wallet,
    /// SEPA direct debit: collected from the account later; the bank confirms it.
    SepaDirectDebit,
}

#[derive(Debug)]
pub struct ChargeRequest<'a> {
    pub payment_uuid: &'a str,
    pub amount: Money,
    pub instrument: &'a Instrument,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChargeOutcome {
    Succeeded {
        provider_payment_id: String,
    },
    Failed {
        provider_payment_id: String,
        reason: &'static str,
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
        reason: &'static str,
    },
}

pub trait Connector: Send + Sync {
    fn provider(&self) -> &'static str;
    fn charge(&self, request: &ChargeRequest<'_>) -> ChargeOutcome;
    fn store_instrument(&self, instrument: &Instrument, source_uuid: &str) -> StoreOutcome;
    /// Charges a stored instrument by the reference `store_instrument` gave.
    fn charge_stored(&self, reference: &str, payment_uuid: &str, amount: Money) -> ChargeOutcome;
}
