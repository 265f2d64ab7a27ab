//! `match_settlement_payouts`: a statement's credit is a payout when it names the payout's
//! reference, has exactly its amount and is valued within the payout's window.

use aho_corasick::{AhoCorasick, MatchKind};
use coffer_camt::{Document, Entry};
use time::{Date, Duration};

use super::Context;
use super::entries::booked_credit;
use super::outcome::{Matched, Outcome, Place, ReportAmount};
use super::references::{normalise_into, texts};

/// How many days after its making the bank may value a payout's credit.
pub const WINDOW_DAYS: i64 = 10;

/// A payout of the account: open, or matched already by the report named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payout {
    pub uuid: String,
    pub amount_value: i64,
    pub currency: String,
    pub reference: String,
    pub settlement_date: Date,
    pub matched_report_uuid: Option<String>,
}

pub fn match_all(document: &Document, context: &Context<'_>, outcome: &mut Outcome) {
    let mut finder = match Finder::new(context.payouts) {
        Ok(finder) => finder,
        Err(why) => return outcome.note_unprocessed(&why),
    };
    let mut taken = vec![false; context.payouts.len()];
    for (s, statement) in document.statements.iter().enumerate() {
        for entry in &statement.entries {
            let place = Place::entry(s, entry);
            match match_entry(entry, context.payouts, &mut finder, &mut taken) {
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

/// Finds every payout reference an entry names in one pass over its texts, however many
/// payouts are open: searching each text once per payout made matching, not parsing, the
/// cost of a large statement.
struct Finder {
    references: Option<AhoCorasick>,
    text: String,
}

impl Finder {
    fn new(payouts: &[Payout]) -> Result<Self, String> {
        let references = if payouts.is_empty() {
            None
        } else {
            let patterns = payouts.iter().map(|p| {
                let mut reference = String::new();
                normalise_into(&mut reference, &p.reference);
                reference
            });
            let built = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(patterns)
                .map_err(|e| format!("the payouts' references could not be indexed: {e}"))?;
            Some(built)
        };
        Ok(Self {
            references,
            text: String::new(),
        })
    }

    /// The payouts the entry names, in the order of `payouts`.
    fn named(&mut self, entry: &Entry) -> Vec<usize> {
        let Some(references) = &self.references else {
            return Vec::new();
        };
        let mut named = Vec::new();
        for text in texts(entry) {
            normalise_into(&mut self.text, text);
            named.extend(
                references
                    .find_overlapping_iter(self.text.as_str())
                    .map(|m| m.pattern().as_usize()),
            );
        }
        named.sort_unstable();
        named.dedup();
        named
    }
}

fn value_date(entry: &Entry) -> Option<Date> {
    entry.value_date.or(entry.booking_date)
}

/// The payout the entry pays, or why it pays none.
fn match_entry(
    entry: &Entry,
    payouts: &[Payout],
    finder: &mut Finder,
    taken: &mut [bool],
) -> Result<usize, String> {
    booked_credit(entry, "payouts")?;
    let named = finder.named(entry);
    let Some(&first) = named.first() else {
        return Err("no payout reference in the entry".into());
    };
    let mut why = String::new();
    for i in named {
        let p = &payouts[i];
        if let Some(report) = &p.matched_report_uuid {
            why = format!(
                "payout {} was matched already, by report {report}",
                p.reference
            );
            continue;
        }
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
