//! What the processings ask of an entry or a transaction before they use it: that it is a
//! booked credit, its own amount in minor units, and the day the bank valued it.

use coffer_camt::{Direction, Entry, Transaction};
use time::Date;

use super::outcome::ReportAmount;

/// ISO 20022's code for a booked entry (`Sts/Cd`, ExternalEntryStatus1Code): the bank's
/// text, which crates/camt hands on as sent, so the only one Coffer reads is named here.
const BOOKED: &str = "BOOK";

/// Whether the entry is money that came in and stays: not a debit, not a reversal of an
/// earlier entry, and booked (an entry without a status is taken as booked). `what` names
/// what the processing looks for, as the reason says it ("payouts", "wire transfers").
pub fn booked_credit(entry: &Entry, what: &str) -> Result<(), String> {
    if entry.direction == Direction::Debit {
        return Err(format!("a debit: {what} are credits"));
    }
    if entry.reversal {
        return Err("a reversal: it undoes an earlier entry".into());
    }
    match entry.status.as_deref() {
        Some(status) if status != BOOKED => Err(format!("not booked (status {status})")),
        _ => Ok(()),
    }
}

/// The transaction's amount as the report shows it, with its minor units above zero. A
/// batch entry's own amount is the batch's, so a transaction of a batch must carry its own;
/// an entry of one transaction (or none) lends it its amount.
pub fn amount(entry: &Entry, tx: &Transaction) -> Result<(ReportAmount, i64), String> {
    let amount = match (&tx.amount, entry.transactions.len()) {
        (Some(a), _) => a,
        (None, 0 | 1) => &entry.amount,
        (None, _) => return Err("a transaction of a batch without its own amount".into()),
    };
    let shown = ReportAmount::of(amount);
    // Payments takes no amount above its currency's largest (coffer-model's Money): an
    // announcement of one would be dead-lettered there, while the report said it was made.
    let most = coffer_model::currency::Currency::parse(&amount.currency)
        .map_or(i64::MAX, |c| c.max_minor_units());
    match shown.value {
        Some(v) if v > most => Err(format!(
            "{} {} is more than a payment can hold (at most {most} minor units)",
            amount.value, amount.currency
        )),
        Some(v) if v > 0 => Ok((shown, v)),
        Some(_) => Err("an amount of zero".into()),
        None => Err(format!(
            "{} {} is not an amount in minor units of a known currency",
            amount.value, amount.currency
        )),
    }
}

/// The day the bank valued the entry, else the day it booked it.
pub fn day(entry: &Entry) -> Result<Date, String> {
    entry
        .value_date
        .or(entry.booking_date)
        .ok_or_else(|| "neither a value date nor a booking date".into())
}
