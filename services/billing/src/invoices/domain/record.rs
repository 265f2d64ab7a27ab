//! An invoice and a charge attempt, as kept and as answered.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::status::{AttemptStatus, InvoiceReason, InvoiceStatus};

#[derive(Debug, Clone, PartialEq)]
pub struct Invoice {
    pub uuid: String,
    pub subscription_uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    /// The charge date it bills (`YYYY-MM-DD`); none for an invoice made by hand.
    pub period_date: Option<String>,
    /// When it fell due (local midnight of its charge date, or its creation).
    pub due_date: i64,
    pub status: InvoiceStatus,
    pub status_reason: InvoiceReason,
    pub amount: i64,
    pub refunded_amount: i64,
    pub currency: String,
    pub next_attempt_date: Option<i64>,
    pub failed_payment_attempts: i32,
    pub is_manually_created: bool,
    pub custom_parameters: Map<String, Value>,
    pub service_parameters: Value,
    pub created: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChargeAttempt {
    pub uuid: String,
    pub invoice_uuid: String,
    pub subscription_uuid: String,
    pub status: AttemptStatus,
    pub status_reason: Option<String>,
    pub payment_uuid: Option<String>,
    pub created: i64,
}

impl ChargeAttempt {
    /// A new attempt to charge `invoice`, pending until payments answers.
    pub fn pending(invoice: &Invoice, now: i64) -> Self {
        ChargeAttempt {
            uuid: uuid::Uuid::new_v4().to_string(),
            invoice_uuid: invoice.uuid.clone(),
            subscription_uuid: invoice.subscription_uuid.clone(),
            status: AttemptStatus::Pending,
            status_reason: None,
            payment_uuid: None,
            created: now,
        }
    }

    pub fn summary(&self) -> AttemptSummary {
        AttemptSummary {
            uuid: self.uuid.clone(),
            status: self.status,
            created: self.created,
        }
    }

    /// The single form, with its invoice (and, when given, its subscription).
    pub fn render(&self, invoice: &Invoice, subscription: Option<Value>) -> Value {
        json!(AttemptView {
            uuid: self.uuid.clone(),
            created: self.created,
            status: self.status,
            status_reason: self.status_reason.clone(),
            payment_uuid: self.payment_uuid.clone(),
            invoice: invoice.view(&[]),
            subscription: subscription.unwrap_or_else(|| json!({"uuid": self.subscription_uuid})),
        })
    }
}

impl Invoice {
    pub fn render(&self, attempts: &[ChargeAttempt]) -> Value {
        json!(self.view(attempts))
    }

    pub fn view(&self, attempts: &[ChargeAttempt]) -> InvoiceView {
        InvoiceView {
            uuid: self.uuid.clone(),
            subscription: Reference {
                uuid: self.subscription_uuid.clone(),
            },
            created: self.created,
            due_date: self.due_date,
            status: self.status,
            status_reason: self.status_reason,
            amount: self.amount,
            refunded_amount: self.refunded_amount,
            currency: self.currency.clone(),
            next_attempt_date: self.next_attempt_date,
            failed_payment_attempts: self.failed_payment_attempts,
            is_manually_created: self.is_manually_created,
            charge_attempts: attempts.iter().map(ChargeAttempt::summary).collect(),
            custom_parameters: self.custom_parameters.clone(),
            service_parameters: self.service_parameters.clone(),
        }
    }
}

/// An object named by its uuid.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Reference {
    #[schema(format = Uuid)]
    pub uuid: String,
}

/// A charge attempt as an invoice lists it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AttemptSummary {
    #[schema(format = Uuid)]
    pub uuid: String,
    pub status: AttemptStatus,
    pub created: i64,
}

/// An invoice as the API shows it; amounts in minor units, instants in Unix seconds.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct InvoiceView {
    #[schema(format = Uuid)]
    pub uuid: String,
    pub subscription: Reference,
    pub created: i64,
    pub due_date: i64,
    pub status: InvoiceStatus,
    /// pending, paid, failed or manual.
    // Described as the plain string it has always been, so the API description is unchanged.
    #[schema(value_type = String)]
    pub status_reason: InvoiceReason,
    pub amount: i64,
    pub refunded_amount: i64,
    /// ISO 4217.
    pub currency: String,
    pub next_attempt_date: Option<i64>,
    pub failed_payment_attempts: i32,
    pub is_manually_created: bool,
    pub charge_attempts: Vec<AttemptSummary>,
    #[schema(value_type = std::collections::HashMap<String, String>)]
    pub custom_parameters: Map<String, Value>,
    #[schema(value_type = Object)]
    pub service_parameters: Value,
}

/// A charge attempt as the API shows it, with its invoice and subscription.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AttemptView {
    #[schema(format = Uuid)]
    pub uuid: String,
    pub created: i64,
    pub status: AttemptStatus,
    pub status_reason: Option<String>,
    #[schema(format = Uuid)]
    pub payment_uuid: Option<String>,
    pub invoice: InvoiceView,
    /// The subscription, whole where the answer has it at hand, else by its uuid.
    #[schema(value_type = Object)]
    pub subscription: Value,
}
