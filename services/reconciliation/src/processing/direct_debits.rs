//! `create_direct_debit_payments`: every transaction of a notification is a collection
//! (or its return) for payments to settle, record or fail.

use std::collections::HashMap;

use coffer_camt::{Direction, Document, Entry, Transaction};
use uuid::Uuid;

use super::Context;
use super::entries;
use super::outcome::{Created, DirectDebit, Outcome, Place};

/// Names Coffer's ids for bank transactions (uuid v5), so the same transaction read again
/// (a redelivery, a file sent twice under another message id) gets the same id.
const DEBITS: Uuid = Uuid::from_u128(0x6d1f_0b3a_5c2e_4f4a_9a63_2b8e_1c7d_5e40);

pub fn announce_all(document: &Document, context: &Context<'_>, outcome: &mut Outcome) {
    let mut reading = Reading {
        context,
        outcome,
        seen: HashMap::new(),
    };
    for (s, statement) in document.statements.iter().enumerate() {
        for entry in &statement.entries {
            if entry.transactions.is_empty() {
                reading.announce(s, entry, None, &Transaction::default());
            }
            for (t, tx) in entry.transactions.iter().enumerate() {
                reading.announce(s, entry, Some(t), tx);
            }
        }
    }
}

/// A notification being read: what it announced so far, and how often each transaction
/// without an EndToEndId was seen (the same collection twice in one file is two).
struct Reading<'a, 'b> {
    context: &'a Context<'b>,
    outcome: &'a mut Outcome,
    seen: HashMap<String, usize>,
}

impl Reading<'_, '_> {
    fn announce(&mut self, s: usize, entry: &Entry, t: Option<usize>, tx: &Transaction) {
        let place = Place {
            transaction: t,
            ..Place::entry(s, entry)
        };
        let read = entries::amount(entry, tx).and_then(|a| Ok((a, entries::day(entry)?)));
        let ((shown, value), date) = match read {
            Ok(read) => read,
            Err(why) => return self.outcome.unmatched(place, entry, why),
        };
        let direction = tx.direction.unwrap_or(entry.direction);
        let returned =
            entry.reversal || tx.return_reason.is_some() || direction == Direction::Debit;
        let kind = if returned {
            "direct_debit_returned"
        } else {
            "direct_debit_received"
        };
        let end_to_end_id = tx.end_to_end_id.clone().filter(|id| id != "NOTPROVIDED");
        let account = &self.context.blueprint.account_uuid;
        // The transaction's identity, the same in whichever file reports it: its EndToEndId
        // where the creditor gave one; else what the bank says of it (mandate, debtor,
        // amount, day) and how many such came before it in this file.
        let identity = match &end_to_end_id {
            Some(id) => format!("{account}:{kind}:{id}:{value}"),
            None => {
                let what = format!(
                    "{account}:{kind}:{}:{}:{value}:{date}",
                    tx.mandate_id.as_deref().unwrap_or_default(),
                    tx.debtor
                        .as_ref()
                        .and_then(|d| d.iban.as_deref().or(d.name.as_deref()))
                        .unwrap_or_default(),
                );
                let nth = self.seen.entry(what.clone()).or_default();
                *nth += 1;
                format!("{what}:{nth}")
            }
        };
        self.outcome.created.push(Created::DirectDebit(DirectDebit {
            place,
            kind,
            debit_uuid: Uuid::new_v5(&DEBITS, identity.as_bytes()).to_string(),
            end_to_end_id,
            mandate_reference: tx.mandate_id.clone(),
            amount: shown,
            value_date: date.to_string(),
            reason: returned.then(|| tx.return_reason.clone().unwrap_or_else(|| "NARR".into())),
            debtor: tx.debtor.clone(),
        }));
    }
}
