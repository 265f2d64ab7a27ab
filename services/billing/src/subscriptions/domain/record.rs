//! A subscription as billing keeps it, and as the API shows it.

use chrono::NaiveDate;
use coffer_model::currency::Currency;
use coffer_model::zone::{self, Tz};
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
        json!({
            "uuid": self.uuid,
            "organisation_uuid": self.organisation_uuid,
            "account_uuid": self.account_uuid,
            "supporter_uuid": self.supporter_uuid,
            "subscription_plan": {"uuid": self.plan_uuid, "name": plan_name},
            "payment_source_uuid": self.payment_source_uuid,
            "payment_provider": self.payment_provider,
            "payment_method": self.payment_method,
            "created": self.created,
            "currency": self.currency.code(),
            "amount": self.amount,
            "timezone": self.timezone,
            // Coffer charges the source itself, on its own schedule.
            "charged_by": "coffer",
            "next_due_date": self.next_due_date,
            "subscription_status": self.status,
            "recurring_interval": self.interval.long_form(self.anchor_date),
            "planned_effective_from": self.instant(self.planned_effective_from),
            "planned_since": self.planned_since,
            "planned_end": self.instant(self.planned_end),
            "ended_at": self.ended_at,
            "suspension_start": self.instant(self.suspension_start),
            "suspension_end": self.instant(self.suspension_end),
            "consecutive_failed_invoices": self.consecutive_failed_invoices,
            "test_mode": self.test_mode,
            "custom_parameters": self.custom_parameters,
            "service_parameters": self.service_parameters,
            "test_clock_uuid": self.test_clock_uuid,
        })
    }
}
