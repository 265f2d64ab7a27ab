//! A plan and the changes a request asks for, checked. Pure.

use coffer_model::ids::parse_uuid;
use coffer_model::validation::FieldError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The plan every organisation's list shows, the fallback for an organisation without a
/// default of its own. Its uuid never changes, so clients may name it.
pub const GLOBAL_UUID: &str = "00000000-0000-4000-8000-000000000001";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Dunning {
    /// Days after an invoice's due date on which a failed charge is tried again.
    pub retry_after_days: Vec<u32>,
    /// Invoices failing in a row after which the subscription is cancelled.
    pub cancel_subscription_after_failed_invoices: u32,
}

impl Default for Dunning {
    fn default() -> Self {
        Self {
            retry_after_days: vec![2, 4, 6],
            cancel_subscription_after_failed_invoices: 3,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Notifications {
    /// Days before a charge to announce `subscriptions.invoice.upcoming`; none when null.
    pub notify_before_charge_days: Option<u32>,
    /// Whether a failed charge attempt is announced for the charity to contact the donor.
    pub notify_on_failed_attempt: bool,
}

/// A subscription plan: how its subscriptions are dunned and announced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Plan {
    pub uuid: String,
    /// None only for the global default plan.
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<String>,
    pub name: String,
    pub is_default: bool,
    pub dunning_configuration: Dunning,
    pub notification_configuration: Notifications,
    pub created: i64,
}

pub fn global() -> Plan {
    Plan {
        uuid: GLOBAL_UUID.to_owned(),
        organisation_uuid: None,
        account_uuid: None,
        name: "Default".to_owned(),
        is_default: true,
        dunning_configuration: Dunning::default(),
        notification_configuration: Notifications::default(),
        created: 0,
    }
}

/// What a create or update body sets; a field left out is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub organisation_uuid: Option<String>,
    /// `Some(None)` clears it (the plan becomes the organisation's).
    pub account_uuid: Option<Option<String>>,
    pub name: Option<String>,
    pub is_default: Option<bool>,
    pub dunning: Option<Dunning>,
    pub notifications: Option<Notifications>,
}

/// Applies what a create or update body sets.
pub fn apply(plan: &mut Plan, changes: Changes) {
    if let Some(account) = changes.account_uuid {
        plan.account_uuid = account;
    }
    if let Some(name) = changes.name {
        plan.name = name;
    }
    if let Some(is_default) = changes.is_default {
        plan.is_default = is_default;
    }
    if let Some(dunning) = changes.dunning {
        plan.dunning_configuration = dunning;
    }
    if let Some(notifications) = changes.notifications {
        plan.notification_configuration = notifications;
    }
}

fn count(
    value: &Value,
    property: &str,
    range: std::ops::RangeInclusive<u32>,
) -> Result<u32, FieldError> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            FieldError::not_valid(
                property,
                format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        })
}

fn dunning(value: &Value, errors: &mut Vec<FieldError>) -> Option<Dunning> {
    const AT: &str = "dunning_configuration";
    let Some(object) = value.as_object() else {
        errors.push(FieldError::not_valid(AT, "must be an object"));
        return None;
    };
    let mut out = Dunning::default();
    let before = errors.len();
    if let Some(days) = object.get("retry_after_days") {
        match days.as_array() {
            Some(items) if items.len() <= 10 => {
                out.retry_after_days.clear();
                for (i, item) in items.iter().enumerate() {
                    let property = format!("{AT}.retry_after_days[{i}]");
                    match count(item, &property, 1..=365) {
                        Ok(n) if out.retry_after_days.last().is_some_and(|last| *last >= n) => {
                            errors.push(FieldError::not_valid(
                                property,
                                "must be later than the retry before it",
                            ));
                        }
                        Ok(n) => out.retry_after_days.push(n),
                        Err(e) => errors.push(e),
                    }
                }
            }
            _ => errors.push(FieldError::not_valid(
                format!("{AT}.retry_after_days"),
                "must be an array of at most 10 day counts",
            )),
        }
    }
    if let Some(limit) = object.get("cancel_subscription_after_failed_invoices") {
        match count(
            limit,
            &format!("{AT}.cancel_subscription_after_failed_invoices"),
            1..=100,
        ) {
            Ok(n) => out.cancel_subscription_after_failed_invoices = n,
            Err(e) => errors.push(e),
        }
    }
    (errors.len() == before).then_some(out)
}

fn notifications(value: &Value, errors: &mut Vec<FieldError>) -> Option<Notifications> {
    const AT: &str = "notification_configuration";
    let Some(object) = value.as_object() else {
        errors.push(FieldError::not_valid(AT, "must be an object"));
        return None;
    };
    let mut out = Notifications::default();
    let before = errors.len();
    match object.get("notify_before_charge_days") {
        None | Some(Value::Null) => {}
        Some(days) => match count(days, &format!("{AT}.notify_before_charge_days"), 1..=60) {
            Ok(n) => out.notify_before_charge_days = Some(n),
            Err(e) => errors.push(e),
        },
    }
    match object.get("notify_on_failed_attempt") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => out.notify_on_failed_attempt = *b,
        Some(_) => errors.push(FieldError::not_valid(
            format!("{AT}.notify_on_failed_attempt"),
            "must be true or false",
        )),
    }
    (errors.len() == before).then_some(out)
}

/// Reads a create or update body. Unknown fields are ignored, as elsewhere in Coffer.
pub fn changes(body: &Value) -> Result<Changes, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut out = Changes::default();
    let Some(object) = body.as_object() else {
        return Err(vec![FieldError::not_valid("body", "must be a JSON object")]);
    };
    let uuid = |property: &str, value: &Value, errors: &mut Vec<FieldError>| match value.as_str() {
        Some(raw) => match parse_uuid(property, raw) {
            Ok(u) => Some(u.to_string()),
            Err(e) => {
                errors.push(e);
                None
            }
        },
        None => {
            errors.push(FieldError::not_valid(property, "must be a uuid"));
            None
        }
    };
    if let Some(v) = object.get("organisation_uuid") {
        out.organisation_uuid = uuid("organisation_uuid", v, &mut errors);
    }
    match object.get("account_uuid") {
        None => {}
        Some(Value::Null) => out.account_uuid = Some(None),
        Some(v) => out.account_uuid = uuid("account_uuid", v, &mut errors).map(Some),
    }
    if let Some(v) = object.get("name") {
        match v.as_str().map(str::trim) {
            Some(name) if !name.is_empty() && name.chars().count() <= 255 => {
                out.name = Some(name.to_owned())
            }
            Some(name) if !name.is_empty() => errors.push(FieldError::not_valid(
                "name",
                "must be at most 255 characters",
            )),
            _ => errors.push(FieldError::not_blank("name")),
        }
    }
    match object.get("is_default") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => out.is_default = Some(*b),
        Some(_) => errors.push(FieldError::not_valid("is_default", "must be true or false")),
    }
    if let Some(v) = object.get("dunning_configuration").filter(|v| !v.is_null()) {
        out.dunning = dunning(v, &mut errors);
    }
    if let Some(v) = object
        .get("notification_configuration")
        .filter(|v| !v.is_null())
    {
        out.notifications = notifications(v, &mut errors);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

// The bodies as the API description shows them; `changes` above is what checks them.

/// Dunning settings as a request sends them; one left out takes its default.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct DunningBody {
    /// Up to 10 day counts from 1 to 365, each later than the one before (default 2, 4, 6).
    #[schema(max_items = 10)]
    retry_after_days: Option<Vec<u32>>,
    /// 1 to 100 (default 3).
    #[schema(minimum = 1, maximum = 100)]
    cancel_subscription_after_failed_invoices: Option<u32>,
}

/// Notification settings as a request sends them.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct NotificationsBody {
    /// 1 to 60; null announces nothing.
    #[schema(minimum = 1, maximum = 60)]
    notify_before_charge_days: Option<u32>,
    notify_on_failed_attempt: Option<bool>,
}

/// The body of Create Subscription Plan.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"organisation_uuid": "5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21", "name": "Monthly donors", "dunning_configuration": {"retry_after_days": [2, 4, 6], "cancel_subscription_after_failed_invoices": 3}}))]
#[allow(dead_code)]
pub struct PlanBody {
    #[schema(format = Uuid)]
    organisation_uuid: String,
    /// Only this account's subscriptions use it as their default.
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    /// At most 255 characters, trimmed.
    #[schema(min_length = 1)]
    name: String,
    is_default: Option<bool>,
    dunning_configuration: Option<DunningBody>,
    notification_configuration: Option<NotificationsBody>,
}

/// The body of Update Subscription Plan: a field left out is kept.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"name": "Monthly donors (2027)"}))]
#[allow(dead_code)]
pub struct PlanChangeBody {
    /// Null makes it the organisation's.
    #[schema(format = Uuid)]
    account_uuid: Option<String>,
    /// At most 255 characters, trimmed.
    #[schema(min_length = 1)]
    name: Option<String>,
    is_default: Option<bool>,
    dunning_configuration: Option<DunningBody>,
    notification_configuration: Option<NotificationsBody>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn left_out_settings_take_the_defaults() {
        let c = changes(
            &json!({"name": " Monthly ", "dunning_configuration": {"retry_after_days": [1, 3]}}),
        )
        .unwrap();
        assert_eq!(c.name.as_deref(), Some("Monthly"));
        assert_eq!(
            c.dunning,
            Some(Dunning {
                retry_after_days: vec![1, 3],
                cancel_subscription_after_failed_invoices: 3
            })
        );
        assert_eq!(c.notifications, None);
    }

    #[test]
    fn each_bad_setting_is_named() {
        let errors = changes(&json!({
            "name": "",
            "account_uuid": "nope",
            "dunning_configuration": {"retry_after_days": [4, 2, 0], "cancel_subscription_after_failed_invoices": 0},
            "notification_configuration": {"notify_before_charge_days": -1, "notify_on_failed_attempt": "yes"}
        }))
        .unwrap_err();
        let properties: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            properties,
            [
                "account_uuid",
                "name",
                "dunning_configuration.retry_after_days[1]",
                "dunning_configuration.retry_after_days[2]",
                "dunning_configuration.cancel_subscription_after_failed_invoices",
                "notification_configuration.notify_before_charge_days",
                "notification_configuration.notify_on_failed_attempt",
            ]
        );
    }
}
