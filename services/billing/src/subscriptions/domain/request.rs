//! The bodies of Create and Update Subscription, checked field by field; every problem is
//! named by its property. Pure: references (account, source, supporter, plan) are checked
//! against the database by the commands (commands/references.rs).

use chrono::NaiveDate;
use coffer_model::currency::Currency;
use coffer_model::fields::FieldReader;
use coffer_model::over_maximum;
use coffer_model::timestamp::Date;
use coffer_model::validation::FieldError;
use coffer_model::zone::{self, Tz};
use serde_json::{Map, Value};

use super::status::SubscriptionStatus;
use crate::schedule::Interval;

/// Every field either body may carry; `None` when it was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub account_uuid: Option<String>,
    pub payment_source_uuid: Option<String>,
    pub test_mode: Option<bool>,
    /// `Some(None)` when sent as null (an update may only set it when unset).
    pub supporter_uuid: Option<Option<String>>,
    pub plan_uuid: Option<String>,
    pub currency: Option<Currency>,
    pub amount: Option<i64>,
    /// The zone as sent (kept for the response) and as understood (UTC when unknown).
    pub timezone: Option<(String, Tz)>,
    pub recurring_interval: Option<(String, Interval)>,
    pub status: Option<String>,
    pub planned_effective_from: Option<Option<NaiveDate>>,
    pub planned_end: Option<Option<NaiveDate>>,
    pub custom_parameters: Option<Map<String, Value>>,
    pub service_parameters: Option<Value>,
    pub test_clock_uuid: Option<String>,
}

pub fn date(property: &str, raw: &str) -> Result<NaiveDate, FieldError> {
    Date::parse(property, raw)?;
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .map_err(|_| FieldError::not_valid(property, "must be a date, YYYY-MM-DD"))
}

/// A date field (YYYY-MM-DD), read as [`FieldReader`] reads the others.
fn date_field(r: &mut FieldReader<'_>, property: &str) -> Option<Option<NaiveDate>> {
    match r.get(property)? {
        Value::Null => Some(None),
        Value::String(raw) => match date(property, raw) {
            Ok(d) => Some(Some(d)),
            Err(e) => {
                r.errors.push(e);
                None
            }
        },
        _ => {
            r.errors.push(FieldError::not_valid(
                property,
                "must be a date, YYYY-MM-DD",
            ));
            None
        }
    }
}

pub fn read(body: &Value) -> Result<Fields, Vec<FieldError>> {
    let mut r = FieldReader::of(body)?;
    // An object, as `of` found.
    let Some(object) = body.as_object() else {
        return Err(r.errors);
    };
    let mut f = Fields {
        account_uuid: r.uuid("account_uuid").flatten(),
        payment_source_uuid: r.uuid("payment_source_uuid").flatten(),
        supporter_uuid: r.uuid("supporter_uuid"),
        plan_uuid: r.uuid("subscription_plan_uuid").flatten(),
        test_clock_uuid: r.uuid("test_clock_uuid").flatten(),
        planned_effective_from: date_field(&mut r, "planned_effective_from"),
        planned_end: date_field(&mut r, "planned_end"),
        ..Fields::default()
    };
    let mut errors = r.errors;
    match object.get("test_mode") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => f.test_mode = Some(*b),
        Some(_) => errors.push(FieldError::not_valid("test_mode", "must be true or false")),
    }
    match object.get("currency") {
        None | Some(Value::Null) => {}
        Some(Value::String(code)) => match Currency::parse_field("currency", code) {
            Ok(c) => f.currency = Some(c),
            Err(e) => errors.push(e),
        },
        Some(_) => errors.push(FieldError::not_valid(
            "currency",
            "must be an ISO 4217 code",
        )),
    }
    match object.get("amount") {
        None | Some(Value::Null) => {}
        Some(value) => {
            // Minor units: an integer, or its digits as a string (as Money's value is sent).
            let amount = value.as_i64().or_else(|| {
                value
                    .as_str()
                    .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|s| s.parse().ok())
            });
            match amount {
                Some(a) if a > 0 => f.amount = Some(a),
                _ => errors.push(FieldError::not_valid(
                    "amount",
                    "must be a whole number of minor units above 0",
                )),
            }
        }
    }
    // Create names the currency beside the amount; an update's currency is the
    // subscription's, checked where the subscription is at hand.
    if let (Some(amount), Some(currency)) = (f.amount, f.currency)
        && amount > currency.max_minor_units()
    {
        errors.push(over_maximum("amount", currency));
    }
    match object.get("timezone") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            // SPEC.md: an unknown zone falls back to UTC rather than failing.
            let understood = zone::parse(name).unwrap_or(zone::UTC);
            let shown = if zone::parse(name).is_some() {
                name.clone()
            } else {
                "UTC".to_owned()
            };
            f.timezone = Some((shown, understood));
        }
        Some(_) => errors.push(FieldError::not_valid(
            "timezone",
            "must be a time zone name",
        )),
    }
    match object.get("recurring_interval") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => match Interval::parse(text) {
            Ok(i) => f.recurring_interval = Some((text.trim().to_owned(), i)),
            Err(e) => errors.push(FieldError::not_valid("recurring_interval", e.0)),
        },
        Some(_) => errors.push(FieldError::not_valid(
            "recurring_interval",
            "must be a string",
        )),
    }
    match object.get("status") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => f.status = Some(s.clone()),
        Some(_) => errors.push(FieldError::invalid_choice(
            "status",
            "must be active or pending",
        )),
    }
    match object.get("custom_parameters") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            let nested = map.iter().find(|(_, v)| !v.is_string());
            match nested {
                Some((key, _)) => errors.push(FieldError::not_valid(
                    format!("custom_parameters.{key}"),
                    "must be a string",
                )),
                None => f.custom_parameters = Some(map.clone()),
            }
        }
        Some(_) => errors.push(FieldError::not_valid(
            "custom_parameters",
            "must be an object of strings",
        )),
    }
    match object.get("service_parameters") {
        None | Some(Value::Null) => {}
        Some(v @ Value::Object(_)) => f.service_parameters = Some(v.clone()),
        Some(_) => errors.push(FieldError::not_valid(
            "service_parameters",
            "must be an object",
        )),
    }
    if let (Some(Some(from)), Some(Some(end))) = (f.planned_effective_from, f.planned_end)
        && end < from
    {
        errors.push(FieldError::not_valid(
            "planned_end",
            "must not be before planned_effective_from",
        ));
    }
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(errors)
    }
}

/// The fields Create Subscription cannot do without.
pub fn require_for_create(f: &Fields) -> Result<(), Vec<FieldError>> {
    let mut missing = Vec::new();
    if f.account_uuid.is_none() {
        missing.push(FieldError::not_null("account_uuid"));
    }
    if f.payment_source_uuid.is_none() {
        missing.push(FieldError::not_null("payment_source_uuid"));
    }
    if !matches!(f.supporter_uuid, Some(Some(_))) {
        missing.push(FieldError::not_null("supporter_uuid"));
    }
    if f.currency.is_none() {
        missing.push(FieldError::not_null("currency"));
    }
    if f.amount.is_none() {
        missing.push(FieldError::not_null("amount"));
    }
    if f.recurring_interval.is_none() {
        missing.push(FieldError::not_null("recurring_interval"));
    }
    if let Some(status) = &f.status
        && !matches!(
            SubscriptionStatus::parse(status),
            Some(SubscriptionStatus::Active | SubscriptionStatus::Pending)
        )
    {
        missing.push(FieldError::invalid_choice(
            "status",
            "must be active or pending",
        ));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// Update Subscription refuses what it cannot change, naming it.
pub fn refuse_fixed_for_update(body: &Value) -> Result<(), Vec<FieldError>> {
    let fixed: Vec<FieldError> = [
        "status",
        "account_uuid",
        "test_mode",
        "currency",
        "test_clock_uuid",
    ]
    .into_iter()
    .filter(|k| body.get(*k).is_some())
    .map(|k| FieldError::not_valid(k, "cannot be changed by an update"))
    .collect();
    if fixed.is_empty() { Ok(()) } else { Err(fixed) }
}

// The bodies as the API description shows them; `read` above is what checks them. Every
// field may be null where it may be left out, as `read` takes null for left out.

/// What both bodies may set.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct SubscriptionTerms {
    /// The plan that dunns it; the organisation's default when left out.
    #[schema(format = Uuid)]
    subscription_plan_uuid: Option<String>,
    /// An IANA zone; an unknown one is UTC.
    timezone: Option<String>,
    #[schema(format = Date)]
    planned_effective_from: Option<String>,
    #[schema(format = Date)]
    planned_end: Option<String>,
    custom_parameters: Option<std::collections::HashMap<String, String>>,
    #[schema(value_type = Option<Object>)]
    service_parameters: Option<Value>,
}

/// The body of Create Subscription.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"account_uuid": "0b6a3c38-3b1f-4d67-9a0e-2f0d3e9b8c11", "supporter_uuid": "8d0f8a0e-3f8b-4d3c-9c8f-2d9a6c1e4b77", "payment_source_uuid": "1f3e5a7c-9b2d-4e6f-8a0c-3e5f7a9b1d2c", "amount": 2500, "currency": "CHF", "recurring_interval": "monthly", "timezone": "Europe/Zurich"}))]
#[allow(dead_code)]
pub struct CreateBody {
    #[schema(format = Uuid)]
    account_uuid: String,
    #[schema(format = Uuid)]
    supporter_uuid: String,
    #[schema(format = Uuid)]
    payment_source_uuid: String,
    /// ISO 4217, the payment source's currency.
    #[schema(pattern = "^[A-Z]{3}$")]
    currency: String,
    /// Minor units, above 0.
    #[schema(value_type = coffer_model::money::MinorUnits)]
    amount: i64,
    /// `weekly`, `monthly`, `quarterly`, `semestral`, `yearly`, or cron fields: day of
    /// month, month, day of week (`15 */2 *`), optionally after `0 0`.
    recurring_interval: String,
    /// `active` (the default) or `pending`, activated later.
    status: Option<StartStatus>,
    test_mode: Option<bool>,
    /// A test clock of the organisation, for a test-mode subscription.
    #[schema(format = Uuid)]
    test_clock_uuid: Option<String>,
    #[serde(flatten)]
    terms: SubscriptionTerms,
}

/// The statuses a subscription may start in.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum StartStatus {
    Active,
    Pending,
}

/// The body of Update Subscription: a field left out is kept; `status`, `account_uuid`,
/// `test_mode`, `currency` and `test_clock_uuid` cannot be changed.
#[derive(serde::Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"amount": 3000}))]
#[allow(dead_code)]
pub struct ChangeBody {
    /// Set only while it has none.
    #[schema(format = Uuid)]
    supporter_uuid: Option<String>,
    #[schema(format = Uuid)]
    payment_source_uuid: Option<String>,
    #[schema(value_type = Option<coffer_model::money::MinorUnits>)]
    amount: Option<i64>,
    recurring_interval: Option<String>,
    #[serde(flatten)]
    terms: SubscriptionTerms,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_zone_is_utc_and_bad_fields_are_named() {
        let f = read(
            &json!({"timezone": "Mars/Base", "amount": "1500", "recurring_interval": "monthly"}),
        )
        .unwrap();
        assert_eq!(f.timezone.unwrap().0, "UTC");
        assert_eq!(f.amount, Some(1500));
        let errors = read(&json!({
            "account_uuid": "x", "amount": 0, "currency": "XXY", "recurring_interval": "fortnightly",
            "planned_effective_from": "2026-02-30", "custom_parameters": {"a": {"b": 1}}
        }))
        .unwrap_err();
        let properties: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            properties,
            [
                "account_uuid",
                "planned_effective_from",
                "currency",
                "amount",
                "recurring_interval",
                "custom_parameters.a"
            ]
        );
    }
}
