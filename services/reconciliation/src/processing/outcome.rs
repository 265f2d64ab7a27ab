//! A processing's outcome: what the report shows and what the events announce.

use std::collections::BTreeMap;

use coffer_camt::{Decimal, Direction, Document, Entry, Transaction};
use serde::Serialize;

use super::creditor_reference::ReferenceType;

/// An amount as a report shows it: exactly as the file wrote it, and in minor units when
/// the currency allows that without rounding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ReportAmount {
    /// The amount as written in the file, such as `"1250.00"`.
    pub text: String,
    pub currency: String,
    /// Minor units, absent when the file's amount has more decimals than the currency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

impl ReportAmount {
    pub fn of(amount: &coffer_camt::Amount) -> Self {
        let value = coffer_model::currency::Currency::parse(&amount.currency)
            .ok()
            .and_then(|c| amount.minor_units(u32::from(c.exponent())));
        ReportAmount {
            text: amount.value.to_string(),
            currency: amount.currency.clone(),
            value,
        }
    }
}

/// Where in the file an item is: statement (or notification), entry and transaction, each
/// counted from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Place {
    pub statement: usize,
    pub entry: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<usize>,
}

impl Place {
    /// The whole entry, the `statement`th of the file.
    pub fn entry(statement: usize, entry: &Entry) -> Self {
        Place {
            statement,
            entry: entry.index,
            transaction: None,
        }
    }
}

/// An entry matched with a payout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Matched {
    #[serde(flatten)]
    pub place: Place,
    pub payout_uuid: String,
    pub reference: String,
    pub amount: ReportAmount,
    pub value_date: String,
}

/// What the file announced to payments: a direct debit collected or returned, or a wire
/// transfer received. Each item says which in its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Created {
    DirectDebit(DirectDebit),
    WireTransfer(WireTransfer),
}

/// A direct debit the file reported: a payment payments settles or records, or a return.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct DirectDebit {
    #[serde(flatten)]
    pub place: Place,
    /// `direct_debit_received` or `direct_debit_returned`.
    pub kind: &'static str,
    /// Coffer's id for the transaction: the payment payments records when none is named.
    pub debit_uuid: String,
    pub end_to_end_id: Option<String>,
    pub mandate_reference: Option<String>,
    pub amount: ReportAmount,
    pub value_date: String,
    /// The return's reason code (AC06, MD06…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The debtor as the file names them.
    #[serde(skip)]
    pub debtor: Option<coffer_camt::Party>,
}

/// A credit with a creditor or QR reference, for payments to record as a payment.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct WireTransfer {
    #[serde(flatten)]
    pub place: Place,
    /// `wire_transfer_received`.
    pub kind: &'static str,
    /// Coffer's id for the credit, the same in every file that reports it: the payment
    /// payments records for it.
    pub transfer_uuid: String,
    /// The reference in its electronic form: upper case, without blanks.
    pub reference: String,
    pub reference_type: ReferenceType,
    pub amount: ReportAmount,
    pub value_date: String,
    /// The debtor as the file names them.
    #[serde(skip)]
    pub debtor: Option<coffer_camt::Party>,
}

/// An entry or transaction the processing could not use, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Unmatched {
    #[serde(flatten)]
    pub place: Place,
    pub amount: ReportAmount,
    /// `credit` or `debit`.
    pub direction: &'static str,
    pub reason: String,
}

/// One currency's sums, exactly as the file's amounts add up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Total {
    pub currency: String,
    pub credits: String,
    pub debits: String,
    pub entries: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub entry_count: usize,
    pub transaction_count: usize,
    pub totals: Vec<Total>,
    pub matched: Vec<Matched>,
    pub created: Vec<Created>,
    pub unmatched: Vec<Unmatched>,
    /// What the report says beside the items: batches that do not add up, processings
    /// that did nothing.
    pub notes: Vec<String>,
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::Credit => "credit",
        Direction::Debit => "debit",
    }
}

impl Outcome {
    /// Counts, totals per currency and the batch notes: what every processing reports.
    pub fn counted(document: &Document) -> Self {
        let mut sums: BTreeMap<String, (Decimal, Decimal, usize)> = BTreeMap::new();
        let mut outcome = Outcome::default();
        for (s, statement) in document.statements.iter().enumerate() {
            for entry in &statement.entries {
                outcome.entry_count += 1;
                outcome.transaction_count += entry.transactions.len();
                let sum = sums.entry(entry.amount.currency.clone()).or_default();
                // checked: a sum past Decimal's 28 digits is not a real statement's.
                match entry.direction {
                    Direction::Credit => {
                        sum.0 = sum.0.checked_add(entry.amount.value).unwrap_or(sum.0)
                    }
                    Direction::Debit => {
                        sum.1 = sum.1.checked_add(entry.amount.value).unwrap_or(sum.1)
                    }
                }
                sum.2 += 1;
                if let Some(m) = &entry.batch_mismatch {
                    outcome.notes.push(batch_note(s, entry, m));
                }
            }
        }
        outcome.totals = sums
            .into_iter()
            .map(|(currency, (credits, debits, entries))| Total {
                currency,
                credits: credits.to_string(),
                debits: debits.to_string(),
                entries,
            })
            .collect();
        outcome
    }

    pub fn unmatched(&mut self, place: Place, entry: &Entry, reason: impl Into<String>) {
        self.unmatched.push(Unmatched {
            place,
            amount: ReportAmount::of(&entry.amount),
            direction: direction(entry.direction),
            reason: reason.into(),
        });
    }

    /// A transaction not used, shown with its own amount and direction where it has them
    /// (a batch entry's are the batch's).
    pub fn unmatched_transaction(
        &mut self,
        place: Place,
        entry: &Entry,
        tx: &Transaction,
        reason: impl Into<String>,
    ) {
        self.unmatched.push(Unmatched {
            place,
            amount: ReportAmount::of(tx.amount.as_ref().unwrap_or(&entry.amount)),
            direction: direction(tx.direction.unwrap_or(entry.direction)),
            reason: reason.into(),
        });
    }

    pub fn note_unprocessed(&mut self, why: &str) {
        self.notes.push(why.to_owned());
    }
}

fn batch_note(statement: usize, entry: &Entry, m: &coffer_camt::BatchMismatch) -> String {
    let at = format!("statement {statement}, entry {}", entry.index);
    let amount = format!("{} {}", entry.amount.value, entry.amount.currency);
    if let Some(total) = &m.transactions_total {
        format!(
            "{at}: its transactions add up to {} {}, not the entry's {amount}",
            total.value, total.currency
        )
    } else if let Some(currency) = &m.foreign_currency {
        format!("{at}: a transaction in {currency} cannot be added up to the entry's {amount}")
    } else if let Some(total) = &m.batch_total {
        format!(
            "{at}: the batch total {} {} is not the entry's {amount}",
            total.value, total.currency
        )
    } else {
        format!("{at}: its parts do not add up to {amount}")
    }
}
