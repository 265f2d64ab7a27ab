//! Does an entry's detail add up to the entry?
//!
//! Reconciliation matches Coffer's payments against the transactions inside an entry, and
//! books the entry amount. If the two disagree (a bank netting fees into a batch, a detail
//! missing from the file) matching every transaction would still leave money unexplained,
//! so the disagreement is reported instead of being discovered at month end.

use rust_decimal::Decimal;

use crate::amount::Amount;
use crate::document::{Batch, BatchMismatch, Direction, Transaction};

/// The transaction amounts add up to more than a `Decimal` holds, so no exact total exists.
/// Only a file with absurd amounts gets here; it is refused rather than rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TotalOverflow;

pub(crate) fn check_batch(
    amount: &Amount,
    direction: Direction,
    batch: Option<&Batch>,
    transactions: &[Transaction],
) -> Result<Option<BatchMismatch>, TotalOverflow> {
    let mut mismatch = BatchMismatch {
        transactions_total: None,
        foreign_currency: None,
        batch_total: None,
    };

    match transactions_total(amount, direction, transactions)? {
        Total::NotComparable => {}
        Total::ForeignCurrency(currency) => mismatch.foreign_currency = Some(currency),
        Total::Sum(sum) if sum != amount.value => {
            mismatch.transactions_total = Some(Amount {
                currency: amount.currency.clone(),
                value: sum,
            });
        }
        Total::Sum(_) => {}
    }

    if let Some(batch) = batch
        && let Some(total) = &batch.total
    {
        let signed = signed(total.value, batch.direction.unwrap_or(direction), direction);
        if total.currency != amount.currency || signed != amount.value {
            mismatch.batch_total = Some(Amount {
                currency: total.currency.clone(),
                value: signed,
            });
        }
    }

    let found = mismatch.transactions_total.is_some()
        || mismatch.foreign_currency.is_some()
        || mismatch.batch_total.is_some();
    Ok(found.then_some(mismatch))
}

enum Total {
    /// No transactions, or one without an amount: nothing to compare.
    NotComparable,
    ForeignCurrency(String),
    Sum(Decimal),
}

/// Adds the amounts as integers at the finest scale among them. `Decimal::checked_add`
/// may drop digits to make room when scales differ; this never does.
fn transactions_total(
    amount: &Amount,
    direction: Direction,
    transactions: &[Transaction],
) -> Result<Total, TotalOverflow> {
    let mut parts = Vec::with_capacity(transactions.len());
    for tx in transactions {
        let Some(tx_amount) = &tx.amount else {
            return Ok(Total::NotComparable);
        };
        if tx_amount.currency != amount.currency {
            return Ok(Total::ForeignCurrency(tx_amount.currency.clone()));
        }
        // camt.05x.001.02 gives a transaction no direction: it moves with its entry.
        parts.push(signed(
            tx_amount.value,
            tx.direction.unwrap_or(direction),
            direction,
        ));
    }
    let Some(scale) = parts.iter().map(Decimal::scale).max() else {
        return Ok(Total::NotComparable);
    };
    let mut sum: i128 = 0;
    for part in &parts {
        let factor = 10i128
            .checked_pow(scale - part.scale())
            .ok_or(TotalOverflow)?;
        let units = part.mantissa().checked_mul(factor).ok_or(TotalOverflow)?;
        sum = sum.checked_add(units).ok_or(TotalOverflow)?;
    }
    Decimal::try_from_i128_with_scale(sum, scale)
        .map(Total::Sum)
        .map_err(|_| TotalOverflow)
}

/// `value` counted in the entry's direction.
fn signed(value: Decimal, own: Direction, entry: Direction) -> Decimal {
    if own == entry { value } else { -value }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::amount::parse_decimal;

    fn chf(text: &str) -> Amount {
        Amount {
            currency: "CHF".into(),
            value: parse_decimal(text).unwrap(),
        }
    }

    fn tx(text: &str, direction: Option<Direction>) -> Transaction {
        Transaction {
            amount: Some(chf(text)),
            direction,
            ..Transaction::default()
        }
    }

    #[test]
    fn matching_details_are_no_mismatch() {
        let txs = [tx("15.00", None), tx("9", Some(Direction::Credit))];
        assert_eq!(
            check_batch(&chf("24.00"), Direction::Credit, None, &txs),
            Ok(None)
        );
    }

    #[test]
    fn a_detail_booked_the_other_way_subtracts() {
        let txs = [tx("25.00", None), tx("1.00", Some(Direction::Debit))];
        assert_eq!(
            check_batch(&chf("24"), Direction::Credit, None, &txs),
            Ok(None)
        );
    }

    #[test]
    fn a_shortfall_is_reported_with_the_total() {
        let txs = [tx("15.00", None), tx("8.99", None)];
        let mismatch = check_batch(&chf("24.00"), Direction::Credit, None, &txs)
            .unwrap()
            .unwrap();
        assert_eq!(mismatch.transactions_total, Some(chf("23.99")));
        assert_eq!(mismatch.foreign_currency, None);
        assert_eq!(mismatch.batch_total, None);
    }

    #[test]
    fn a_missing_detail_amount_is_not_compared() {
        let mut txs = vec![tx("1.00", None)];
        txs.push(Transaction::default());
        assert_eq!(
            check_batch(&chf("24.00"), Direction::Credit, None, &txs),
            Ok(None)
        );
    }

    #[test]
    fn a_foreign_currency_is_reported() {
        let mut other = tx("3.10", None);
        other.amount = Some(Amount {
            currency: "EUR".into(),
            value: parse_decimal("3.10").unwrap(),
        });
        let mismatch = check_batch(&chf("3.10"), Direction::Debit, None, &[other])
            .unwrap()
            .unwrap();
        assert_eq!(mismatch.foreign_currency.as_deref(), Some("EUR"));
    }

    #[test]
    fn a_batch_total_in_the_other_direction_differs() {
        let batch = Batch {
            message_id: None,
            payment_information_id: None,
            number_of_transactions: Some(2),
            total: Some(chf("24.00")),
            direction: Some(Direction::Debit),
        };
        let mismatch = check_batch(&chf("24.00"), Direction::Credit, Some(&batch), &[])
            .unwrap()
            .unwrap();
        let expected = Amount {
            value: -chf("24.00").value,
            ..chf("0")
        };
        assert_eq!(mismatch.batch_total, Some(expected));
        let agreeing = Batch {
            direction: Some(Direction::Credit),
            ..batch
        };
        assert_eq!(
            check_batch(&chf("24"), Direction::Credit, Some(&agreeing), &[]),
            Ok(None)
        );
    }

    #[test]
    fn mixed_scales_add_up_exactly_or_not_at_all() {
        let txs = [tx("10000000000000000000000000", None), tx("0.01", None)];
        let entry = chf("10000000000000000000000000.02");
        let mismatch = check_batch(&entry, Direction::Credit, None, &txs)
            .unwrap()
            .unwrap();
        assert_eq!(
            mismatch.transactions_total.unwrap().value.to_string(),
            "10000000000000000000000000.01"
        );
        let txs = [tx("9999999999999999999999999999", None), tx("0.1", None)];
        assert_eq!(
            check_batch(&chf("1"), Direction::Credit, None, &txs),
            Err(TotalOverflow)
        );
    }
}
