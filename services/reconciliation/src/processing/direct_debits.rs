//! `create_direct_debit_payments`: every transaction of a notification is a collection
//! (or its return) for payments to settle, record or fail.

use coffer_camt::{Direction, Document, Entry, Statement, Transaction};
use uuid::Uuid;

use super::Context;
use super::outcome::{Created, Outcome, Place, ReportAmount};

/// Names Coffer's ids for bank transactions (uuid v5), so the same transaction read again
/// (a redelivery, a file sent twice under another message id) gets the same id.
const DEBITS: Uuid = Uuid::from_u128(0x6d1f_0b3a_5c2e_4f4a_9a63_2b8e_1c7d_5e40);

pub fn announce_all(document: &Document, context: &Context<'_>, outcome: &mut Outcome) {
    for (s, statement) in document.statements.iter().enumerate() {
        for entry in &statement.entries {
            if entry.transactions.is_empty() {
                let whole = Transaction::default();
                announce(
                    document, statement, s, entry, None, &whole, context, outcome,
                );
            }
            for (t, tx) in entry.transactions.iter().enumerate() {
                announce(document, statement, s, entry, Some(t), tx, context, outcome);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn announce(
    document: &Document,
    statement: &Statement,
    s: usize,
    entry: &Entry,
    t: Option<usize>,
    tx: &Transaction,
    context: &Context<'_>,
    outcome: &mut Outcome,
) {
    let place = Place {
        statement: s,
        entry: entry.index,
        transaction: t,
    };
    // A batch entry's own amount is the batch's; each transaction carries its own.
    let amount = match (&tx.amount, entry.transactions.len()) {
        (Some(a), _) => a.clone(),
        (None, 0 | 1) => entry.amount.clone(),
        (None, _) => {
            return outcome.unmatched(
                place,
                entry,
                "a transaction of a batch without its own amount",
            );
        }
    };
    let shown = ReportAmount::of(&amount);
    let Some(value) = shown.value.filter(|v| *v > 0) else {
        return outcome.unmatched(
            place,
            entry,
            format!(
                "{} {} is not an amount in minor units of a known currency",
                amount.value, amount.currency
            ),
        );
    };
    let Some(date) = entry.value_date.or(entry.booking_date) else {
        return outcome.unmatched(place, entry, "neither a value date nor a booking date");
    };
    let direction = tx.direction.unwrap_or(entry.direction);
    let returned = entry.reversal || tx.return_reason.is_some() || direction == Direction::Debit;
    let kind = if returned {
        "direct_debit_returned"
    } else {
        "direct_debit_received"
    };
    let end_to_end_id = tx.end_to_end_id.clone().filter(|id| id != "NOTPROVIDED");
    // The transaction's identity: its EndToEndId where the creditor gave one, else its
    // place in this message.
    let identity = match &end_to_end_id {
        Some(id) => format!("{}:{kind}:{id}:{value}", context.blueprint.account_uuid),
        None => format!(
            "{}:{kind}:{}:{}:{}:{}:{}",
            context.blueprint.account_uuid,
            document.message_id,
            statement.id,
            entry.index,
            t.unwrap_or(0),
            value
        ),
    };
    outcome.created.push(Created {
        place,
        kind,
        debit_uuid: Uuid::new_v5(&DEBITS, identity.as_bytes()).to_string(),
        end_to_end_id,
        mandate_reference: tx.mandate_id.clone(),
        amount: shown,
        value_date: date.to_string(),
        reason: returned.then(|| tx.return_reason.clone().unwrap_or_else(|| "NARR".into())),
        debtor: tx.debtor.clone(),
    });
}
