//! A payout's rules: what it takes, what it costs, and how the bank will name it.

use coffer_model::text_enum;
use time::{Date, OffsetDateTime, Time};

use crate::shared::method::PaymentMethod;

text_enum! {
    /// Pending from its making until a bank statement shows the credit.
    pub enum PayoutStatus {
        Pending => "pending",
        Matched => "matched",
    }
}

/// The methods the test provider collects and pays out; a direct debit reaches the bank
/// by itself, so it is never in a payout.
pub const PAID_OUT_METHODS: [PaymentMethod; 3] = [
    PaymentMethod::Card,
    PaymentMethod::Twint,
    PaymentMethod::Paypal,
];

/// The provider's price per payment: a share of the amount in basis points (1/100 %)
/// plus a fixed amount in minor units. Integers only, so a fee is never a float.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeSchedule {
    pub basis_points: u32,
    pub fixed: i64,
}

impl Default for FeeSchedule {
    /// 1.9 % + 0.25 in minor units, a common card price in Europe.
    fn default() -> Self {
        Self {
            basis_points: 190,
            fixed: 25,
        }
    }
}

/// The highest share a fee may take: 100 %.
pub const MAX_BASIS_POINTS: u32 = 10_000;
/// The highest fixed fee: 100.00 in a two-decimal currency.
pub const MAX_FIXED_FEE: i64 = 10_000;

impl FeeSchedule {
    /// The fee on `amount`, the percentage rounded half up to a minor unit; never more
    /// than the amount itself.
    pub fn fee(&self, amount: i64) -> i64 {
        let share = (i128::from(amount) * i128::from(self.basis_points) + 5_000) / 10_000;
        let fee = share.saturating_add(i128::from(self.fixed));
        i64::try_from(fee.min(i128::from(amount))).unwrap_or(amount)
    }
}

/// One payment to pay out, or one refund to take back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub uuid: String,
    pub value: i64,
}

/// A payout to make: its totals and, for each payment, its fee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub gross: i64,
    pub fees: i64,
    pub refunded: i64,
    pub amount: i64,
    pub payments: Vec<(String, i64)>,
    pub refunds: Vec<String>,
}

/// Why nothing is paid out now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nothing {
    /// No payment and no refund waits.
    Empty,
    /// Refunds and fees take all the payments would bring: everything waits for the next
    /// day, when new payments may cover it (a bank transfer cannot be negative).
    NotPositive(i64),
}

/// The payout of `payments` less their fees and `refunds`.
pub fn plan(payments: &[Item], refunds: &[Item], fees: &FeeSchedule) -> Result<Plan, Nothing> {
    if payments.is_empty() && refunds.is_empty() {
        return Err(Nothing::Empty);
    }
    let with_fees: Vec<(String, i64)> = payments
        .iter()
        .map(|p| (p.uuid.clone(), fees.fee(p.value)))
        .collect();
    let gross: i64 = payments.iter().map(|p| p.value).sum();
    let fee_total: i64 = with_fees.iter().map(|(_, f)| f).sum();
    let refunded: i64 = refunds.iter().map(|r| r.value).sum();
    let amount = gross - fee_total - refunded;
    if amount <= 0 {
        return Err(Nothing::NotPositive(amount));
    }
    Ok(Plan {
        gross,
        fees: fee_total,
        refunded,
        amount,
        payments: with_fees,
        refunds: refunds.iter().map(|r| r.uuid.clone()).collect(),
    })
}

/// The reference the payout's credit carries in the bank's remittance information:
/// letters and digits only, so no bank's formatting splits it, short enough for any
/// field (`CPO`, the day, eight characters of the uuid).
pub fn reference(uuid: &uuid::Uuid, day: Date) -> String {
    let simple = uuid.simple().to_string().to_ascii_uppercase();
    format!(
        "CPO{:04}{:02}{:02}{}",
        day.year(),
        u8::from(day.month()),
        day.day(),
        &simple[..8]
    )
}

/// The payments a payout made at `now` takes by the daily rule: those that succeeded
/// before the day began (UTC). `coffer admin payouts settle` takes everything instead.
pub fn daily_cutoff(now: OffsetDateTime) -> i64 {
    now.replace_time(Time::MIDNIGHT).unix_timestamp()
}

/// How many days after its making the bank may show a payout's credit: a reconciliation
/// entry dated outside the window is not this payout.
pub const VALUE_DATE_WINDOW_DAYS: i64 = 10;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    fn item(uuid: &str, value: i64) -> Item {
        Item {
            uuid: uuid.into(),
            value,
        }
    }

    #[test]
    fn a_fee_rounds_half_up_and_never_exceeds_the_amount() {
        let fees = FeeSchedule {
            basis_points: 190,
            fixed: 25,
        };
        // 1.9 % of 1050 is 19.95: 20, plus 25.
        assert_eq!(fees.fee(1050), 45);
        assert_eq!(fees.fee(10), 10);
        // No overflow at the top: the share is taken in 128 bits.
        let top = (i128::from(i64::MAX) * 190 + 5_000) / 10_000 + 25;
        assert_eq!(i128::from(fees.fee(i64::MAX)), top);
        assert_eq!(
            FeeSchedule {
                basis_points: 0,
                fixed: 0
            }
            .fee(500),
            0
        );
    }

    #[test]
    fn a_payout_is_gross_less_fees_less_refunds() {
        let fees = FeeSchedule {
            basis_points: 100,
            fixed: 10,
        };
        let p = plan(
            &[item("a", 1000), item("b", 2000)],
            &[item("r", 500)],
            &fees,
        )
        .unwrap();
        assert_eq!((p.gross, p.fees, p.refunded), (3000, 20 + 30, 500));
        assert_eq!(p.amount, 3000 - 50 - 500);
        assert_eq!(p.payments, vec![("a".into(), 20), ("b".into(), 30)]);
        assert_eq!(p.refunds, vec!["r".to_owned()]);
    }

    #[test]
    fn nothing_is_paid_out_when_refunds_take_it_all() {
        let fees = FeeSchedule::default();
        assert_eq!(plan(&[], &[], &fees), Err(Nothing::Empty));
        assert_eq!(
            plan(&[item("a", 100)], &[item("r", 100)], &fees),
            Err(Nothing::NotPositive(100 - 27 - 100))
        );
    }

    #[test]
    fn the_reference_names_the_day_and_the_payout() {
        let uuid = uuid::Uuid::parse_str("a1b2c3d4-0000-4000-8000-000000000000").unwrap();
        assert_eq!(
            reference(&uuid, date!(2026 - 11 - 26)),
            "CPO20261126A1B2C3D4"
        );
    }

    #[test]
    fn the_daily_rule_takes_what_came_before_midnight() {
        assert_eq!(
            daily_cutoff(datetime!(2026-11-26 17:45:12 UTC)),
            datetime!(2026-11-26 00:00 UTC).unix_timestamp()
        );
    }
}
