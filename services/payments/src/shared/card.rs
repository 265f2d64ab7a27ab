//! Card details as a donor types them, checked and reduced to what may be kept: brand,
//! last four digits, expiry and a keyed fingerprint. The number and CVV never leave this
//! module's values, and their `Debug` shows neither.

use aws_lc_rs::hmac;
use coffer_model::card_numbers::luhn;
use coffer_model::validation::{FieldError, Violations};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `payment_information` for cards, as sent.
#[derive(Clone, Default, utoipa::ToSchema)]
pub struct CardInput {
    pub number: Option<String>,
    pub expiry_month: Option<i64>,
    pub expiry_year: Option<i64>,
    pub cvv: Option<String>,
    pub cardholder: Option<String>,
    pub brand: Option<String>,
}

impl std::fmt::Debug for CardInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardInput").finish_non_exhaustive()
    }
}

/// A card that passed the checks. Holds the number and the CVC only until the connector
/// has used them: neither is stored, logged or announced (Debug shows brand and last four).
#[derive(Clone)]
pub struct Card {
    pub number: String,
    /// For a provider that checks it with the card (Stripe's `card[cvc]`).
    pub cvc: String,
    pub expiry_month: u32,
    pub expiry_year: i32,
    pub cardholder: Option<String>,
    pub brand: &'static str,
}

impl std::fmt::Debug for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Card")
            .field("brand", &self.brand)
            .field("last4", &self.last4())
            .finish_non_exhaustive()
    }
}

/// What is kept of a card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaskedCard {
    pub brand: String,
    pub last4: String,
    pub expiry_month: u32,
    pub expiry_year: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cardholder: Option<String>,
    /// HMAC-SHA256 of the number under the service's key: the same card gives the same
    /// fingerprint, and the number cannot be recovered from it.
    pub fingerprint: String,
}

fn brand_of(number: &str) -> &'static str {
    let prefix2: u32 = number.get(..2).and_then(|p| p.parse().ok()).unwrap_or(0);
    let prefix4: u32 = number.get(..4).and_then(|p| p.parse().ok()).unwrap_or(0);
    match () {
        _ if number.starts_with('4') => "visa",
        _ if (51..=55).contains(&prefix2) || (2221..=2720).contains(&prefix4) => "mastercard",
        _ if prefix2 == 34 || prefix2 == 37 => "amex",
        _ => "unknown",
    }
}

impl CardInput {
    /// Reads `payment_information` (an object) as a card; each property of the wrong type
    /// is named as `payment_information.<field>`. No message repeats what was sent: a
    /// parser's own would quote it (`invalid type: integer 4111111111111111`), and a card
    /// number or CVV sent in the wrong shape is a card number or CVV still.
    pub fn read(info: &Map<String, Value>) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut text = |field: &str, shape: &str| match info.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                errors.push(FieldError::not_valid(
                    format!("payment_information.{field}"),
                    shape,
                ));
                None
            }
        };
        let number = text("number", "must be a string of the card's digits");
        let cvv = text("cvv", "must be a string of 3 or 4 digits");
        let cardholder = text("cardholder", "must be a string");
        let brand = text("brand", "must be a string");
        let mut whole = |field: &str, shape: &str| match info.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
            Some(_) => {
                errors.push(FieldError::not_valid(
                    format!("payment_information.{field}"),
                    shape,
                ));
                None
            }
        };
        let card = CardInput {
            number,
            expiry_month: whole("expiry_month", "must be a whole number from 1 to 12"),
            expiry_year: whole("expiry_year", "must be a whole number, the four-digit year"),
            cvv,
            cardholder,
            brand,
        };
        if errors.is_empty() {
            Ok(card)
        } else {
            Err(errors)
        }
    }

    /// Checks the card against `today` (year, month); each offending property is named as
    /// `payment_information.<field>`.
    pub fn validate(self, today: (i32, u32)) -> Result<Card, Vec<FieldError>> {
        let mut v = Violations::default();
        let p = |f: &str| format!("payment_information.{f}");
        let number: String = self
            .number
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if number.is_empty() {
            v.push(FieldError::not_null(p("number")));
        } else if !(12..=19).contains(&number.len())
            || !number.bytes().all(|b| b.is_ascii_digit())
            || !luhn(&number)
        {
            v.push(FieldError::not_valid(
                p("number"),
                "is not a valid card number",
            ));
        }
        let month = self
            .expiry_month
            .and_then(|m| u32::try_from(m).ok())
            .filter(|m| (1..=12).contains(m));
        if month.is_none() {
            v.push(FieldError::not_valid(p("expiry_month"), "must be 1 to 12"));
        }
        let year = self
            .expiry_year
            .and_then(|y| i32::try_from(y).ok())
            .filter(|y| (2000..=2200).contains(y));
        match (year, month) {
            (None, _) => v.push(FieldError::not_valid(
                p("expiry_year"),
                "must be a four-digit year",
            )),
            (Some(y), Some(m)) if (y, m) < today => {
                v.push(FieldError::not_valid(
                    p("expiry_year"),
                    "the card has expired",
                ));
            }
            _ => {}
        }
        let cvv = self.cvv.unwrap_or_default();
        if !(3..=4).contains(&cvv.len()) || !cvv.bytes().all(|b| b.is_ascii_digit()) {
            v.push(FieldError::not_valid(p("cvv"), "must be 3 or 4 digits"));
        }
        let brand = brand_of(&number);
        v.finish(Card {
            number,
            cvc: cvv,
            expiry_month: month.unwrap_or(1),
            expiry_year: year.unwrap_or(2000),
            cardholder: self.cardholder.filter(|c| !c.trim().is_empty()),
            brand,
        })
    }
}

/// A request body as its Idempotency-Key keeps it (digested with the request): a card's
/// number and CVV, whatever their type, stand as their keyed digests, since a plain digest
/// of a body holding a card number can be reversed by trying the few numbers left once the
/// rest of the body is known. The same body gives the same digest, so replays still match.
pub fn keyed_for_idempotency(body: &Value, fingerprint_key: &[u8]) -> Value {
    let mut body = body.clone();
    if let Some(info) = body
        .get_mut("payment_information")
        .and_then(Value::as_object_mut)
    {
        let key = hmac::Key::new(hmac::HMAC_SHA256, fingerprint_key);
        for field in ["number", "cvv"] {
            if let Some(value) = info.get_mut(field) {
                let tag = hmac::sign(&key, value.to_string().as_bytes());
                *value = Value::String(hex(tag.as_ref()));
            }
        }
    }
    body
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Card {
    pub fn last4(&self) -> &str {
        self.number
            .get(self.number.len().saturating_sub(4)..)
            .unwrap_or_default()
    }

    pub fn masked(&self, fingerprint_key: &[u8]) -> MaskedCard {
        let key = hmac::Key::new(hmac::HMAC_SHA256, fingerprint_key);
        let tag = hmac::sign(&key, self.number.as_bytes());
        MaskedCard {
            brand: self.brand.to_owned(),
            last4: self.last4().to_owned(),
            expiry_month: self.expiry_month,
            expiry_year: self.expiry_year,
            cardholder: self.cardholder.clone(),
            fingerprint: hex(tag.as_ref()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn card(number: &str, month: i64, year: i64, cvv: &str) -> CardInput {
        CardInput {
            number: Some(number.into()),
            expiry_month: Some(month),
            expiry_year: Some(year),
            cvv: Some(cvv.into()),
            ..Default::default()
        }
    }

    #[test]
    fn test_cards_pass_and_mask() {
        let c = card("4242 4242 4242 4242", 12, 2030, "123")
            .validate((2026, 11))
            .unwrap();
        assert_eq!(c.brand, "visa");
        let m = c.masked(b"k");
        assert_eq!(m.last4, "4242");
        assert_eq!(m.fingerprint.len(), 64);
        assert_eq!(
            m.fingerprint,
            card("4242424242424242", 1, 2031, "999")
                .validate((2026, 11))
                .unwrap()
                .masked(b"k")
                .fingerprint
        );
        assert!(
            !format!("{c:?}").contains("42424242"),
            "Debug never shows the number"
        );
        assert_eq!(
            card("5555555555554444", 1, 2027, "1234")
                .validate((2026, 11))
                .unwrap()
                .brand,
            "mastercard"
        );
    }

    #[test]
    fn each_bad_field_is_named() {
        let props = |c: CardInput| -> Vec<String> {
            c.validate((2026, 11))
                .unwrap_err()
                .into_iter()
                .map(|e| e.property)
                .collect()
        };
        assert_eq!(
            props(card("4242424242424241", 12, 2030, "123")),
            ["payment_information.number"]
        );
        assert_eq!(
            props(card("4242424242424242", 10, 2026, "123")),
            ["payment_information.expiry_year"]
        );
        assert_eq!(
            props(card("4242424242424242", 13, 2030, "12")),
            [
                "payment_information.expiry_month",
                "payment_information.cvv"
            ]
        );
        assert_eq!(props(CardInput::default()).len(), 4);
    }
}
