//! A subscription as billing keeps it, and as the API shows it.

use chrono::NaiveDate;
use coffer_model::currency::Currency;
use coffer_model::zone::{self, Tz};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::status::SubscriptionStatus;
use crate::schedule::Interval;

#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub supporter_uuid: Option<String>,
    pub plan_uuid: String,
    pub payment_source_uuid: String,
    pub payment_provider: String,
    pub payment_method: String,
    pub test_mode: bool,
    pub currency: Currency,
    pub amount: i64,
    /// As shown (an unknown zone was replaced by UTC) and as used.
    pub timezone: String,
    pub zone: Tz,
    /// As sent (`monthly`, `15 */2 *`); responses show the long form.
    pub recurring_interval: String,
    pub interval: Interval,
    pub anchor_date: NaiveDate,
    pub status: SubscriptionStatus,
    pub next_due_date: Option<i64>,
    pub planned_effective_from: Option<NaiveDate>,
    /// When it first became active.
    pub planned_since: Option<i64>,
    pub planned_end: Option<NaiveDate>,
    pub ended_at: Option<i64>,
    pub suspension_start: Option<NaiveDate>,
    pub suspension_end: Option<NaiveDate>,
    pub consecutive_failed_invoices: i32,
    pub custom_parameters: Map<String, Value>,
    pub service_parameters: Value,
    pub created: i64,
    /// A test-mode subscription may live on a test clock instead of the real time.
    pub test_clock_uuid: Option<String>,
}

impl Subscription {
    /// Local midnight of a date in the subscription's zone.
    fn instant(&self, date: Option<NaiveDate>) -> Option<i64> {
        date.map(|d| zone::start_of_day(self.zone, d))
    }

    /// The response body; `plan_name` is the current name of its plan.
    pub fn render(&self, plan_name: &str) -> Value {
        json!(self.view(plan_name))
    }

    pub fn view(&self, plan_name: &str) -> SubscriptionView {
        SubscriptionView {
            uuid: self.uuid.clone(),
            organisation_uuid: self.organisation_uuid.clone(),
            account_uuid: self.account_uuid.clone(),
            supporter_uuid: self.supporter_uuid.clone(),
            subscription_plan: PlanName {
                uuid: self.plan_uuid.clone(),
                name: plan_name.to_owned(),
            },
            payment_source_uuid: self.payment_source_uuid.clone(),
            payment_provider: self.payment_provider.clone(),
            payment_method: self.payment_method.clone(),
            created: self.created,
            currency: self.currency.code().to_owned(),
            amount: self.amount,
            timezone: self.timezone.clone(),
            charged_by: "coffer",
            next_due_date: self.next_due_date,
            subscription_status: self.status,
            recurring_interval: self.interval.long_form(self.anchor_date),
            planned_effective_from: self.instant(self.planned_effective_from),
            planned_since: self.planned_since,
            planned_end: self.instant(self.planned_end),
            ended_at: self.ended_at,
            suspension_start: self.instant(self.suspension_start),
            suspension_end: self.instant(self.suspension_end),
            consecutive_failed_invoices: self.consecutive_failed_invoices,
            test_mode: self.test_mode,
            custom_parameters: self.custom_parameters.clone(),
            service_parameters: self.service_parameters.clone(),
            test_clock_uuid: self.test_clock_uuid.clone(),
        }
    }
}

/// A subscription's plan, by uuid and its current name.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PlanName {
    #[schema(format = Uuid)]
    pub uuid: String,
    pub name: String,
}

/// A subscription as the API shows it; instants are Unix seconds, dates local midnight
/// in the subscription's zone.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SubscriptionView {
    #[schema(format = Uuid)]
    pub uuid: String,
    #[schema(format = Uuid)]
    pub organisation_uuid: String,
    #[schema(format = Uuid)]
    pub account_uuid: String,
    #[schema(format = Uuid)]
    pub supporter_uuid: Option<String>,
    pub subscription_plan: PlanName,
    #[schema(format = Uuid)]
    pub payment_source_uuid: String,
    pub payment_provider: String,
    pub payment_method: String,
    pub created: i64,
    /// ISO 4217.
    pub currency: String,
    /// Minor units.
    pub amount: i64,
    pub timezone: String,
    /// Coffer charges the source itself, on its own schedule.
    pub charged_by: &'static str,
    pub next_due_date: Option<i64>,
    pub subscription_status: SubscriptionStatus,
    /// The long (cron) form: minute, hour, day of month, month, day of week.
    pub recurring_interval: String,
    pub planned_effective_from: Option<i64>,
    /// When it first became active.
    pub planned_since: Option<i64>,
    pub planned_end: Option<i64>,
    pub ended_at: Option<i64>,
    pub suspension_start: Option<i64>,
    pub suspension_end: Option<i64>,
    pub consecutive_failed_invoices: i32,
    pub test_mode: bool,
    #[schema(value_type = std::collections::HashMap<String, String>)]
    pub custom_parameters: Map<String, Value>,
    #[schema(value_type = Object)]
    pub service_parameters: Value,
    #[schema(format = Uuid)]
    pub test_clock_uuid: Option<String>,
}
