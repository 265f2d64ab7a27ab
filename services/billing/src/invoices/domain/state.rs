//! An invoice's transitions, pure: an open invoice is paid by a charge, given up after failed
//! ones (dunning), or closed by hand as paid or cancelled. Each sets the status, the reason
//! and the end of retries together, so no caller writes one without the others.

use super::record::Invoice;
use super::status::{InvoiceReason, InvoiceStatus};

/// open → paid, by a charge that succeeded (or by the payment a subscription was born of).
pub fn pay(invoice: &mut Invoice) {
    end(invoice, InvoiceStatus::Paid, InvoiceReason::Paid);
}

/// open → cancelled: dunning has no retry left after a failed charge.
pub fn fail(invoice: &mut Invoice) {
    end(invoice, InvoiceStatus::Cancelled, InvoiceReason::Failed);
}

/// open → `status` (paid or cancelled), by hand; whether it may be closed is
/// [`super::manual::close`]'s judgement.
pub fn close(invoice: &mut Invoice, status: InvoiceStatus) {
    end(invoice, status, InvoiceReason::Manual);
}

fn end(invoice: &mut Invoice, status: InvoiceStatus, reason: InvoiceReason) {
    invoice.status = status;
    invoice.status_reason = reason;
    invoice.next_attempt_date = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open() -> Invoice {
        Invoice {
            uuid: "i".into(),
            subscription_uuid: "s".into(),
            organisation_uuid: "o".into(),
            account_uuid: "a".into(),
            period_date: None,
            due_date: 0,
            status: InvoiceStatus::Open,
            status_reason: InvoiceReason::Pending,
            amount: 100,
            refunded_amount: 0,
            currency: "CHF".into(),
            next_attempt_date: Some(86_400),
            failed_payment_attempts: 1,
            is_manually_created: false,
            custom_parameters: serde_json::Map::new(),
            service_parameters: serde_json::json!({}),
            created: 0,
        }
    }

    type Case = (fn(&mut Invoice), InvoiceStatus, InvoiceReason);

    #[test]
    fn each_transition_sets_status_and_reason_and_ends_retries() {
        let cases: [Case; 4] = [
            (pay, InvoiceStatus::Paid, InvoiceReason::Paid),
            (fail, InvoiceStatus::Cancelled, InvoiceReason::Failed),
            (
                |i| close(i, InvoiceStatus::Paid),
                InvoiceStatus::Paid,
                InvoiceReason::Manual,
            ),
            (
                |i| close(i, InvoiceStatus::Cancelled),
                InvoiceStatus::Cancelled,
                InvoiceReason::Manual,
            ),
        ];
        for (transition, status, reason) in cases {
            let mut invoice = open();
            transition(&mut invoice);
            assert_eq!(
                (
                    invoice.status,
                    invoice.status_reason,
                    invoice.next_attempt_date
                ),
                (status, reason, None)
            );
            assert_eq!(
                invoice.failed_payment_attempts, 1,
                "the count of failures stays"
            );
        }
    }
}
