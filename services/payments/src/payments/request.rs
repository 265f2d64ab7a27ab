//! The payment initialisation request (SPEC.md), checked for what needs no database.

use coffer_http::body::parse_value_at;
use coffer_model::ids::parse_uuid;
use coffer_model::locale::Locale;
use coffer_model::money::Money;
use coffer_model::validation::{FieldError, Violations};
use serde::Deserialize;
use uuid::Uuid;

use super::card::CardInput;

#[derive(Debug, Default, Deserialize)]
pub struct PaymentRequest {
    pub account_uuid: Option<String>,
    pub payment_method: Option<String>,
    pub profile: Option<String>,
    pub locale: Option<String>,
    pub amount: Option<serde_json::Value>,
    pub payment_information: Option<serde_json::Value>,
    pub create_payment_source: Option<bool>,
    pub subscription: Option<serde_json::Value>,
    pub return_url: Option<String>,
    pub supporter: Option<serde_json::Value>,
    pub create_supporter: Option<bool>,
    pub custom_parameters: Option<serde_json::Value>,
}

/// The request once its own fields are known to be sound.
#[derive(Debug)]
pub struct Checked {
    pub account: Uuid,
    pub payment_method: Option<String>,
    pub profile: Option<String>,
    pub locale: Option<String>,
    pub amount: Money,
    /// The card as read, or every property that does not read as a card's.
    pub card: Option<Result<CardInput, Vec<FieldError>>>,
    pub payment_information: Option<serde_json::Value>,
    pub subscription: Option<serde_json::Value>,
    pub return_url: Option<String>,
    pub supporter: Option<serde_json::Value>,
    pub create_supporter: bool,
    pub create_payment_source: bool,
    pub custom_parameters: serde_json::Value,
}

impl PaymentRequest {
    pub fn check(self) -> Result<Checked, Vec<FieldError>> {
        let mut v = Violations::default();
        let account = match self.account_uuid.as_deref() {
            None => {
                v.push(FieldError::not_null("account_uuid"));
                None
            }
            Some(raw) => v.check(parse_uuid("account_uuid", raw)),
        };
        let amount = match &self.amount {
            None => {
                v.push(FieldError::not_null("amount"));
                None
            }
            Some(value) => match Money::from_json("amount", value) {
                Ok(m) if m.value > 0 => Some(m),
                Ok(_) => {
                    v.push(FieldError::not_valid("amount.value", "must be above 0"));
                    None
                }
                Err(errors) => {
                    v.extend(errors);
                    None
                }
            },
        };
        if self.payment_method.is_none() && self.profile.is_none() {
            v.push(FieldError::not_null("profile"));
        }
        let locale = match self.locale.as_deref() {
            Some(raw) => v
                .check(Locale::parse_field("locale", raw))
                .map(|l| l.as_str().to_owned()),
            None => None,
        };
        if let Some(url) = &self.return_url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            v.push(FieldError::not_valid(
                "return_url",
                "must be an http(s) URL",
            ));
        }
        let custom_parameters = match self.custom_parameters {
            Some(value) if value.is_object() => value,
            Some(_) => {
                v.push(FieldError::not_valid(
                    "custom_parameters",
                    "must be an object",
                ));
                serde_json::json!({})
            }
            None => serde_json::json!({}),
        };
        for (property, value) in [
            ("supporter", &self.supporter),
            ("subscription", &self.subscription),
        ] {
            if value.as_ref().is_some_and(|s| !s.is_object()) {
                v.push(FieldError::not_valid(property, "must be an object"));
            }
        }
        // Read as a card whatever the method, since the method is known only once the
        // profile is; its faults count only if the payment turns out to be by card.
        let card = match &self.payment_information {
            Some(info) if info.is_object() => Some(parse_value_at::<CardInput>(
                "payment_information",
                info.clone(),
            )),
            Some(_) => {
                v.push(FieldError::not_valid(
                    "payment_information",
                    "must be an object",
                ));
                None
            }
            None => None,
        };
        let (Some(account), Some(amount)) = (account, amount) else {
            return Err(v.into_vec());
        };
        v.finish(Checked {
            account,
            payment_method: self.payment_method,
            profile: self.profile,
            locale,
            amount,
            card,
            payment_information: self.payment_information,
            subscription: self.subscription,
            return_url: self.return_url,
            supporter: self.supporter,
            create_supporter: self.create_supporter.unwrap_or(false),
            create_payment_source: self.create_payment_source.unwrap_or(false),
            custom_parameters,
        })
    }
}
