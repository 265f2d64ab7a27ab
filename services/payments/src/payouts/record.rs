//! A payout as answered.

use coffer_model::currency::Currency;
use coffer_model::money::Money;
use diesel::result::Error as DieselError;
use serde::Serialize;

use super::domain::PayoutStatus;
use super::store::PayoutRow;

/// A payout: `amount` is what the bank receives, `gross` less `fees` less `refunded`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Payout {
    pub uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: String,
    pub amount: Money,
    pub gross: Money,
    pub fees: Money,
    pub refunded: Money,
    /// What the bank shows in the credit's remittance information.
    pub reference: String,
    pub status: PayoutStatus,
    /// The day the payout was made (YYYY-MM-DD, UTC).
    pub settlement_date: String,
    /// The day the bank credited it, once a statement showed it.
    pub value_date: Option<String>,
    pub created: i64,
    pub payment_count: i64,
    /// The payments paid out, in the single form only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payments: Option<Vec<PaidOut>>,
    /// The refunds taken back, in the single form only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refunds: Option<Vec<TakenBack>>,
}

/// A payment in a payout, with the fee kept from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PaidOut {
    pub payment_uuid: String,
    pub amount: Money,
    pub fee: Money,
}

/// A refund a payout took back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TakenBack {
    pub refund_uuid: String,
    pub payment_uuid: String,
    pub amount: Money,
}

fn unreadable(what: String) -> DieselError {
    DieselError::DeserializationError(what.into())
}

impl Payout {
    /// The list form of a stored payout.
    pub fn from_row(row: PayoutRow) -> Result<Self, DieselError> {
        let currency = Currency::parse(&row.currency)
            .map_err(|_| unreadable(format!("unknown currency {}", row.currency)))?;
        let money = |value| Money { value, currency };
        Ok(Payout {
            amount: money(row.amount_value),
            gross: money(row.gross_value),
            fees: money(row.fees_value),
            refunded: money(row.refunded_value),
            status: row.status,
            uuid: row.uuid,
            organisation_uuid: row.organisation_uuid,
            account_uuid: row.account_uuid,
            reference: row.reference,
            settlement_date: row.settlement_date,
            value_date: row.value_date,
            created: row.created,
            payment_count: row.payment_count,
            payments: None,
            refunds: None,
        })
    }

    /// Completes the single form with its payments and refunds.
    pub fn with_items(
        mut self,
        payments: Vec<(String, i64, i64)>,
        refunds: Vec<(String, String, i64)>,
    ) -> Self {
        let currency = self.amount.currency;
        let money = |value| Money { value, currency };
        self.payments = Some(
            payments
                .into_iter()
                .map(|(payment_uuid, value, fee)| PaidOut {
                    payment_uuid,
                    amount: money(value),
                    fee: money(fee),
                })
                .collect(),
        );
        self.refunds = Some(
            refunds
                .into_iter()
                .map(|(refund_uuid, payment_uuid, value)| TakenBack {
                    refund_uuid,
                    payment_uuid,
                    amount: money(value),
                })
                .collect(),
        );
        self
    }
}
