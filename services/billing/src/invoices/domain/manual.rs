//! The body of Create Invoice, checked field by field; every problem is named by its
//! property.

use coffer_model::validation::FieldError;
use serde_json::{Map, Value};

use super::record::{ChargeAttempt, Invoice};
use super::state;
use super::status::{AttemptStatus, InvoiceStatus};

/// What a manual invoice may set over the subscription's terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManualInvoice {
    pub amount: Option<i64>,
    pub custom_parameters: Option<Map<String, Value>>,
    pub service_parameters: Option<Value>,
}

/// Reads the body (an object, as the extractor made sure, or null when none was sent).
pub fn read(body: &Value) -> Result<ManualInvoice, Vec<FieldError>> {
    let mut errors = Vec::new();
    let amount = match body.get("amount") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64().filter(|a| *a > 0) {
            Some(a) => Some(a),
            None => {
                errors.push(FieldError::not_valid(
                    "amount",
                    "must be a whole number of minor units above 0",
                ));
                None
            }
        },
    };
    let custom_parameters = match body.get("custom_parameters") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) if m.values().all(Value::is_string) => Some(m.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "custom_parameters",
                "must be an object of strings",
            ));
            None
        }
    };
    let service_parameters = match body.get("service_parameters") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(_) => {
            errors.push(FieldError::not_valid(
                "service_parameters",
                "must be an object",
            ));
            None
        }
    };
    if errors.is_empty() {
        Ok(ManualInvoice {
            amount,
            custom_parameters,
            service_parameters,
        })
    } else {
        Err(errors)
    }
}

/// How Close Invoice's body asks the invoice to end: paid or cancelled.
pub fn closing_status(body: &Value) -> Result<InvoiceStatus, FieldError> {
    let asked = match body.get("status") {
        None | Some(Value::Null) => return Err(FieldError::not_null("status")),
        Some(v) => v.as_str().and_then(InvoiceStatus::parse),
    };
    match asked {
        Some(closed @ (InvoiceStatus::Paid | InvoiceStatus::Cancelled)) => Ok(closed),
        _ => Err(FieldError::invalid_choice(
            "status",
            "must be paid or cancelled",
        )),
    }
}

/// Closes `invoice` by hand as `status`, judged on the invoice and its attempts as they are
/// now. Closing means no charge (SPEC.md), so an invoice with a pending attempt is not
/// closed: that attempt may still take the money, and once taken it could not be undone
/// by the close. The client closes it once the attempt has ended (failed), or finds it
/// paid.
pub fn close(
    mut invoice: Invoice,
    attempts: &[ChargeAttempt],
    status: InvoiceStatus,
) -> Result<Invoice, FieldError> {
    if invoice.status != InvoiceStatus::Open {
        return Err(FieldError::not_valid(
            "status",
            format!("the invoice is {} already", invoice.status),
        ));
    }
    if attempts.iter().any(|a| a.status == AttemptStatus::Pending) {
        return Err(FieldError::not_valid(
            "status",
            "a charge attempt of the invoice is pending and may still take the payment; \
             close the invoice once the attempt has ended",
        ));
    }
    state::close(&mut invoice, status);
    Ok(invoice)
}

/// The body of Create Invoice, as the API description shows it (`read` checks it).
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"amount": 2500}))]
#[allow(dead_code)]
pub struct ManualBody {
    /// Minor units above 0; the subscription's amount when left out.
    #[schema(minimum = 1)]
    amount: Option<i64>,
    custom_parameters: Option<std::collections::HashMap<String, String>>,
    #[schema(value_type = Option<Object>)]
    service_parameters: Option<Value>,
}

/// How an invoice closed by hand ends.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum Closing {
    Paid,
    Cancelled,
}

/// The body of Close Invoice.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"status": "paid"}))]
#[allow(dead_code)]
pub struct CloseBody {
    status: Closing,
}
