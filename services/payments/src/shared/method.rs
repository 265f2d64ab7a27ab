//! A payment method, and what a request paying by it charges: the one decision, method to
//! instrument, that payments and payment sources both take, and what of the instrument is
//! kept (a card's brand, last four digits and fingerprint; an IBAN's ends).

use coffer_model::iban::Iban;
use coffer_model::text_enum;
use coffer_model::validation::FieldError;
use serde_json::json;

use super::card::Card;
use super::request::Checked;
use crate::error::PaymentsError;

text_enum! {
    /// A payment method, as requested, stored and answered: the four a profile offers,
    /// and a wire transfer, which only a bank file reports.
    pub enum PaymentMethod {
        Card => "card",
        Twint => "twint",
        Paypal => "paypal",
        SepaDd => "sepa_dd",
        BankTransfer => "bank_transfer",
    }
}

impl PaymentMethod {
    /// The methods every account can take, each first through Coffer's test provider
    /// (its test profiles are made in this order).
    pub const OFFERED: [PaymentMethod; 4] = [
        PaymentMethod::Card,
        PaymentMethod::SepaDd,
        PaymentMethod::Twint,
        PaymentMethod::Paypal,
    ];
}

/// What is being charged.
#[derive(Debug, Clone)]
pub enum Instrument {
    Card(Card),
    /// A card payment asked for without card data: the donor enters the card on Coffer's
    /// payment page, into the provider's own fields, so no card number reaches Coffer.
    DonorCard,
    /// TWINT, PayPal: the donor approves at the provider.
    Wallet,
    /// SEPA direct debit: collected from the account later; the bank confirms it.
    SepaDirectDebit(Debit),
}

/// The account a direct debit collects from, as the request gave it.
#[derive(Clone)]
pub struct Debit {
    pub iban: Iban,
    pub holder: String,
    /// The payer's e-mail, from the request's supporter: some providers (Stripe) tell the
    /// payer of each collection by mail, and need it.
    pub email: Option<String>,
}

/// Never the whole IBAN, whatever prints it.
impl std::fmt::Debug for Debit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Debit")
            .field("iban", &masked_iban(&self.iban))
            .finish_non_exhaustive()
    }
}

/// What is charged for a request paying by `method` (a profile's), and what of it is kept;
/// None for a method that has no instrument (the caller says why it refuses it).
pub(crate) fn instrument_for(
    method: PaymentMethod,
    checked: &Checked,
    fingerprint_key: &[u8],
    now: time::OffsetDateTime,
) -> Result<Option<(Instrument, serde_json::Value)>, PaymentsError> {
    Ok(Some(match method {
        PaymentMethod::Card => card_instrument(fingerprint_key, checked, now)?,
        PaymentMethod::Twint | PaymentMethod::Paypal => (Instrument::Wallet, json!({})),
        PaymentMethod::SepaDd => {
            let (mut debit, masked) = sepa_information(checked.payment_information.as_ref())?;
            debit.email = checked
                .supporter
                .as_ref()
                .and_then(|s| s.get("email"))
                .and_then(|e| e.as_str())
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_owned);
            (Instrument::SepaDirectDebit(debit), masked)
        }
        // A wire transfer is only ever reported by the bank, never charged.
        PaymentMethod::BankTransfer => return Ok(None),
    }))
}

/// The reference of a direct debit mandate: what the donor's bank statement shows beside
/// each collection (at most 35 characters).
pub(crate) fn mandate_reference(uuid: &str) -> String {
    let simple: String = uuid.chars().filter(|c| *c != '-').take(16).collect();
    format!("CFM-{simple}")
}

/// `payment_information` of a direct debit: the IBAN (checked) and its holder, and what is
/// kept of them, which shows the country, check digits and last four characters of the
/// IBAN.
pub(crate) fn sepa_information(
    info: Option<&serde_json::Value>,
) -> Result<(Debit, serde_json::Value), PaymentsError> {
    let mut errors = Vec::new();
    let info = info.cloned().unwrap_or_default();
    let iban = match info.get("iban").and_then(|v| v.as_str()) {
        None => {
            errors.push(FieldError::not_null("payment_information.iban"));
            None
        }
        Some(raw) => match Iban::parse_field("payment_information.iban", raw) {
            Ok(iban) => Some(iban),
            Err(e) => {
                errors.push(e);
                None
            }
        },
    };
    let holder = info
        .get("account_holder")
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|h| !h.is_empty());
    if holder.is_none() {
        errors.push(FieldError::not_blank("payment_information.account_holder"));
    }
    let (Some(iban), Some(holder)) = (iban, holder) else {
        return Err(PaymentsError::invalid_all(errors));
    };
    let masked = json!({ "iban": masked_iban(&iban), "account_holder": holder });
    let debit = Debit {
        iban,
        holder: holder.to_owned(),
        email: None,
    };
    Ok((debit, masked))
}

/// What of an IBAN is kept: its country, check digits and last four characters.
pub(crate) fn masked_iban(iban: &Iban) -> String {
    let text = iban.as_str();
    format!(
        "{}{}{}",
        &text[..4],
        "*".repeat(text.len().saturating_sub(8)),
        &text[text.len() - 4..]
    )
}

/// The request's card, checked against today, and what of it may be kept; without
/// `payment_information`, a card the donor will enter on the payment page (the connector
/// says whether it can send them there).
fn card_instrument(
    fingerprint_key: &[u8],
    checked: &Checked,
    now: time::OffsetDateTime,
) -> Result<(Instrument, serde_json::Value), PaymentsError> {
    let Some(card) = checked.card.clone() else {
        return Ok((Instrument::DonorCard, json!({})));
    };
    let card = card
        .map_err(PaymentsError::invalid_all)?
        .validate((now.year(), u32::from(u8::from(now.month()))))
        .map_err(PaymentsError::invalid_all)?;
    let masked =
        serde_json::to_value(card.masked(fingerprint_key)).map_err(PaymentsError::internal)?;
    Ok((Instrument::Card(card), masked))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::shared::request::PaymentRequest;

    #[test]
    fn each_method_keeps_the_text_its_rows_hold() {
        for (method, text) in [
            (PaymentMethod::Card, "card"),
            (PaymentMethod::Twint, "twint"),
            (PaymentMethod::Paypal, "paypal"),
            (PaymentMethod::SepaDd, "sepa_dd"),
            (PaymentMethod::BankTransfer, "bank_transfer"),
        ] {
            assert_eq!(method.as_str(), text);
            assert_eq!(PaymentMethod::parse(text), Some(method));
        }
        assert!(!PaymentMethod::OFFERED.contains(&PaymentMethod::BankTransfer));
    }

    #[test]
    fn a_wire_transfer_has_no_instrument() {
        let checked = PaymentRequest {
            account_uuid: Some("0b6a3c38-3b1f-4d67-9a0e-2f0d3e9b8c11".into()),
            amount: Some(json!({"value": "1050", "currency": "CHF"})),
            payment_method: Some("bank_transfer".into()),
            ..PaymentRequest::default()
        }
        .check()
        .unwrap();
        let now = time::OffsetDateTime::UNIX_EPOCH;
        assert!(
            instrument_for(PaymentMethod::BankTransfer, &checked, b"key", now)
                .unwrap()
                .is_none()
        );
        let wallet = instrument_for(PaymentMethod::Twint, &checked, b"key", now).unwrap();
        assert!(matches!(wallet, Some((Instrument::Wallet, _))));
    }
}
