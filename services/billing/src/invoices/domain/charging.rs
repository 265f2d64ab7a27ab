//! Drafting invoices, for the scheduler, the manual operations and a subscription born
//! from a payment alike.

use serde_json::{Map, Value, json};

use super::record::Invoice;
use super::status::{InvoiceReason, InvoiceStatus};
use crate::subscriptions::domain::Subscription;

/// An open invoice of the subscription's amount, due at `due`.
pub fn draft(s: &Subscription, period: Option<String>, due: i64, now: i64) -> Invoice {
    Invoice {
        uuid: uuid::Uuid::new_v4().to_string(),
        subscription_uuid: s.uuid.clone(),
        organisation_uuid: s.organisation_uuid.clone(),
        account_uuid: s.account_uuid.clone(),
        is_manually_created: period.is_none(),
        period_date: period,
        due_date: due,
        status: InvoiceStatus::Open,
        status_reason: InvoiceReason::Pending,
        amount: s.amount,
        refunded_amount: 0,
        currency: s.currency.code().to_owned(),
        next_attempt_date: None,
        failed_payment_attempts: 0,
        custom_parameters: s.custom_parameters.clone(),
        service_parameters: json!({}),
        created: now,
    }
}

/// Custom parameters of a manual invoice: the request's over the subscription's.
pub fn merged(base: &Map<String, Value>, over: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut out = base.clone();
    if let Some(over) = over {
        out.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    out
}
