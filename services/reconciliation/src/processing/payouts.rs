//! `match_settlement_payouts`: a statement's credit is a payout when it names the payout's
//! reference, has exactly its amount and is valued within the payout's window.

use coffer_camt::{Direction, Document, Entry};
use time::{Date, Duration};

use super::Context;
use super::outcome::{Matched, Outcome, Place, ReportAmount};
use super::references::{mentions, normalised, texts};

/// How many days after its making the bank may value a payout's credit.
pub const WINDOW_DAYS: i64 = 10;

/// A payout of the account that no statement has matched yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payout {
    pub uuid: String,
    pub amount_value: i64,
    pub currency: String,
    pub reference: String,
    pub settlement_date: Date,
}

pub fn match_all(document: &Document, context: &Context<'_>, outcome: &mut Outcome) {
    let references: Vec<String> = context
        .payouts
        .iter()
        .map(|p| normalised(&p.reference))
        .collect();
    let mut taken = vec![false; context.payouts.len()];
    for (s, statement) in document.statements.iter().enumerate() {
        for entry in &statement.entries {
            let place = Place {
                statement: s,
                entry: entry.index,
                transaction: None,
            };
            match match_entry(entry, context.payouts, &references, &mut taken) {
                Ok(i) => {
                    let payout = &context.payouts[i];
                    outcome.matched.push(Matched {
                        place,
                        payout_uuid: payout.uuid.clone(),
                        reference: payout.reference.clone(),
                        amount: ReportAmount::of(&entry.amount),
                        value_date: value_date(entry).map(|d| d.to_string()).unwrap_or_default(),
                    });
                }
                Err(reason) => outcome.unmatched(place, entry, reason),
            }
        }
    }
}

fn value_date(entry: &Entry) -> Option<Date> {
    entry.value_date.or(entry.booking_date)
}

/// The payout the entry pays, or why it pays none.
fn match_entry(
    entry: &Entry,
    payouts: &[Payout],
    references: &[String],
    taken: &mut [bool],
) -> Result<usize, String> {
    if entry.direction == Direction::Debit {
        return Err("a debit: payouts are credits".into());
    }
    if entry.reversal {
        return Err("a reversal: it undoes an earlier entry".into());
    }
    if entry.status.as_deref().is_some_and(|s| s != "BOOK") {
        return Err(format!(
            "not booked (status {})",
            entry.status.as_deref().unwrap_or_default()
        ));
    }
    let texts: Vec<String> = texts(entry).into_iter().map(normalised).collect();
    let named: Vec<usize> = (0..payouts.len())
        .filter(|&i| mentions(&texts, &references[i]))
        .collect();
    let Some(&first) = named.first() else {
        return Err("no payout reference in the entry".into());
    };
    let mut why = String::new();
    for i in named {
        let p = &payouts[i];
        let minor = coffer_model::currency::Currency::parse(&entry.amount.currency)
            .ok()
            .and_then(|c| entry.amount.minor_units(u32::from(c.exponent())));
        if p.currency != entry.amount.currency || minor != Some(p.amount_value) {
            why = format!(
                "payout {} is {} in minor units of {}; the entry is {} {}",
                p.reference, p.amount_value, p.currency, entry.amount.value, entry.amount.currency
            );
            continue;
        }
        let Some(date) = value_date(entry) else {
            why = "the entry has neither a value date nor a booking date".into();
            continue;
        };
        let last = p.settlement_date.checked_add(Duration::days(WINDOW_DAYS));
        if date < p.settlement_date || last.is_some_and(|l| date > l) {
            why = format!(
                "valued {date}, outside payout {}'s window ({} to {WINDOW_DAYS} days later)",
                p.reference, p.settlement_date
            );
            continue;
        }
        if taken[i] {
            why = format!(
                "payout {} is matched by an earlier entry of the file",
                p.reference
            );
            continue;
        }
        taken[i] = true;
        return Ok(i);
    }
    if why.is_empty() {
        why = format!("payout {} cannot be matched", payouts[first].reference);
    }
    Err(why)
}
