//! The payment initialisation request (SPEC.md), checked for what needs no database.

use coffer_model::ids::parse_uuid;
use coffer_model::locale::Locale;
use coffer_model::money::Money;
use coffer_model::validation::{FieldError, Violations};
use serde::Deserialize;
use uuid::Uuid;

use crate::shared::card::CardInput;

/// A payment to initialise (SPEC.md, "Payment initialisation request"); a payment source
/// is created from the same shape.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({
    "account_uuid": "0b6a3c38-3b1f-4d67-9a0e-2f0d3e9b8c11",
    "payment_method": "card",
    "amount": {"value": "1050", "currency": "CHF"},
    "payment_information": {"number": "4242424242424242", "expiry_month": 12, "expiry_year": 2030, "cvv": "123", "cardholder": "Ada Muster"},
    "supporter": {"first_name": "Ada", "last_name": "Muster", "email": "ada@example.org"},
    "create_supporter": true,
    "custom_parameters": {"campaign": "winter"}
}))]
pub struct PaymentRequest {
    /// The merchant's account.
    #[schema(value_type = uuid::Uuid, required = true)]
    pub account_uuid: Option<String>,
    /// `card`, `sepa_dd`, ...; the account's profile for it is used. One of this and
    /// `profile` is needed.
    pub payment_method: Option<String>,
    /// The payment method profile to use, by its uuid or name; `default` is the account's
    /// default profile for `payment_method`.
    pub profile: Option<String>,
    /// BCP 47, for the donor's pages (`de-CH`).
    pub locale: Option<String>,
    #[schema(value_type = coffer_model::money::Money, required = true)]
    pub amount: Option<serde_json::Value>,
    /// Depends on the method; for cards: number, expiry_month, expiry_year, cvv,
    /// cardholder, brand.
    #[schema(value_type = Option<crate::shared::card::CardInput>)]
    pub payment_information: Option<serde_json::Value>,
    /// Keep the instrument so it can be charged again.
    pub create_payment_source: Option<bool>,
    /// Starts a subscription: recurring_interval, timezone, planned_effective_from,
    /// planned_end, plan_uuid.
    #[schema(value_type = Option<Object>)]
    pub subscription: Option<serde_json::Value>,
    /// An http(s) URL the donor comes back to after a redirect.
    pub return_url: Option<String>,
    /// The supporter: `uuid` of an existing one, or the fields of a new one.
    #[schema(value_type = Option<Object>)]
    pub supporter: Option<serde_json::Value>,
    /// Record `supporter` as a new supporter.
    pub create_supporter: Option<bool>,
    /// Free JSON kept with the payment.
    #[schema(value_type = Option<Object>)]
    pub custom_parameters: Option<serde_json::Value>,
}

/// In the API description, [`PaymentRequest`] also says that one of `payment_method` and
/// `profile` must be given, which its fields alone cannot say.
pub struct NeedsMethodOrProfile;

impl utoipa::Modify for NeedsMethodOrProfile {
    #[allow(deprecated)] // `example` is what the rest of the description carries
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder, ObjectBuilder, Schema, Type};
        let Some(schemas) = openapi.components.as_mut().map(|c| &mut c.schemas) else {
            return;
        };
        let Some(RefOr::T(Schema::Object(mut own))) = schemas.remove("PaymentRequest") else {
            return;
        };
        let (description, example) = (own.description.take(), own.example.take());
        let given = |field: &str| {
            ObjectBuilder::new()
                .property(field, ObjectBuilder::new().schema_type(Type::String))
                .required(field)
        };
        let either = AnyOfBuilder::new()
            .item(given("payment_method"))
            .item(given("profile"));
        let mut whole = AllOfBuilder::new()
            .item(Schema::Object(own))
            .item(either)
            .description(description)
            .build();
        whole.example = example;
        schemas.insert("PaymentRequest".to_owned(), Schema::AllOf(whole).into());
    }
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
        // A form that offers the field sends it empty when left blank (the n8n RaiseNow
        // node does): that is no profile named.
        let profile = self.profile.filter(|p| !p.is_empty());
        if self.payment_method.is_none() && profile.is_none() {
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
            Some(serde_json::Value::Object(info)) => Some(CardInput::read(info)),
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
            profile,
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
