//! `match_wire_transfers`: a booked credit whose transaction carries a structured creditor
//! reference (ISO 11649, `RF…`) or a Swiss QR reference is a transfer for payments to
//! record as a payment. Only `RmtInf/Strd/CdtrRefInf/Ref` is read for the reference: the
//! payer's bank carried it as the creditor issued it, while free remittance text holds
//! whatever the payer typed.

use std::collections::HashMap;

use coffer_camt::{Direction, Document, Entry, Transaction};
use uuid::Uuid;

use super::Context;
use super::creditor_reference::Reference;
use super::entries;
use super::outcome::{Created, Outcome, Place, WireTransfer};

/// Names Coffer's ids for credits (uuid v5), so the same credit read again (a file sent
/// twice under another message id, a notification and then the day's statement) gets the
/// same id, and payments records it once.
const TRANSFERS: Uuid = Uuid::from_u128(0x3b9e_47c1_d05a_4e8f_b2a6_71c4_98e3_0f5d);

pub fn announce_all(document: &Document, context: &Context<'_>, outcome: &mut Outcome) {
    let mut reading = Reading {
        account: &context.blueprint.account_uuid,
        outcome,
        seen: HashMap::new(),
    };
    for (s, statement) in document.statements.iter().enumerate() {
        for entry in &statement.entries {
            let place = Place::entry(s, entry);
            if let Err(why) = entries::booked_credit(entry, "wire transfers") {
                reading.outcome.unmatched(place, entry, why);
            } else if entry.transactions.is_empty() {
                reading.outcome.unmatched(
                    place,
                    entry,
                    "no creditor or QR reference: the entry has no transaction details",
                );
            } else {
                for (t, tx) in entry.transactions.iter().enumerate() {
                    let place = Place {
                        transaction: Some(t),
                        ..place
                    };
                    reading.read(place, entry, tx);
                }
            }
        }
    }
}

/// A file being read: how often each credit's description was seen so far, so that two
/// alike credits in one file are two transfers.
struct Reading<'a> {
    account: &'a str,
    outcome: &'a mut Outcome,
    seen: HashMap<String, usize>,
}

impl Reading<'_> {
    fn read(&mut self, place: Place, entry: &Entry, tx: &Transaction) {
        match self.transfer(place, entry, tx) {
            Ok(transfer) => self.outcome.created.push(Created::WireTransfer(transfer)),
            Err(why) => self.outcome.unmatched_transaction(place, entry, tx, why),
        }
    }

    fn transfer(
        &mut self,
        place: Place,
        entry: &Entry,
        tx: &Transaction,
    ) -> Result<WireTransfer, String> {
        if tx.direction == Some(Direction::Debit) {
            return Err("a debit: wire transfers are credits".into());
        }
        if tx.return_reason.is_some() {
            return Err("a payment of the account's coming back (RtrInf), not a transfer".into());
        }
        let raw = tx
            .creditor_reference
            .as_deref()
            .ok_or("no creditor or QR reference (RmtInf/Strd/CdtrRefInf/Ref)")?;
        let reference = Reference::parse(raw).map_err(|e| e.to_string())?;
        let (amount, value) = entries::amount(entry, tx)?;
        let date = entries::day(entry)?;
        let (account, currency) = (self.account, &amount.currency);
        let what = match bank_identity(entry, place, tx) {
            Some(bank) => format!("{account}:{bank}:{}:{value}:{currency}", reference.text),
            None => format!(
                "{account}:{}:{}:{value}:{currency}:{date}",
                reference.text,
                tx.debtor
                    .as_ref()
                    .and_then(|d| d.iban.as_deref().or(d.name.as_deref()))
                    .unwrap_or_default(),
            ),
        };
        let nth = self.seen.entry(what.clone()).or_default();
        *nth += 1;
        Ok(WireTransfer {
            place,
            kind: "wire_transfer_received",
            transfer_uuid: Uuid::new_v5(&TRANSFERS, format!("{what}:{nth}").as_bytes()).to_string(),
            reference: reference.text,
            reference_type: reference.kind,
            amount,
            value_date: date.to_string(),
            debtor: tx.debtor.clone(),
        })
    }
}

/// What names the credit in every file of the bank that reports it: the bank's own
/// reference for it (the transaction's, or that of an entry of one transaction), else its
/// UETR, else the batch entry's reference and the transaction's place in the batch. None
/// when the bank gave none of these.
fn bank_identity(entry: &Entry, place: Place, tx: &Transaction) -> Option<String> {
    let entry_reference = entry.account_servicer_reference.as_deref();
    if let Some(r) = tx
        .account_servicer_reference
        .as_deref()
        .or(entry_reference.filter(|_| entry.transactions.len() == 1))
    {
        return Some(format!("bank:{r}"));
    }
    if let Some(uetr) = &tx.uetr {
        return Some(format!("uetr:{}", uetr.to_ascii_lowercase()));
    }
    entry_reference.map(|r| format!("bank:{r}/{}", place.transaction.unwrap_or_default()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::blueprints::domain::{MessageType, Processing};
    use crate::blueprints::store::Blueprint;
    use crate::processing::creditor_reference::ReferenceType;

    /// A camt.053 statement of `entries`, processed.
    fn processed(message_id: &str, entries: &str) -> Outcome {
        let xml = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"><BkToCstmrStmt>
<GrpHdr><MsgId>{message_id}</MsgId></GrpHdr>
<Stmt><Id>1</Id><Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct>{entries}</Stmt>
</BkToCstmrStmt></Document>"#
        );
        let document = coffer_camt::parse(xml.as_bytes(), &coffer_camt::Limits::default()).unwrap();
        let blueprint = Blueprint {
            uuid: "b".into(),
            organisation_uuid: "o".into(),
            account_uuid: "a".into(),
            name: "transfers".into(),
            message_type: MessageType::Camt053,
            processing: Processing::MatchWireTransfers,
            versions: Vec::new(),
            ibans: Vec::new(),
            created: 0,
            updated: 0,
        };
        let context = Context {
            blueprint: &blueprint,
            payouts: &[],
        };
        let mut outcome = Outcome::default();
        announce_all(&document, &context, &mut outcome);
        outcome
    }

    /// A booked credit entry of `transactions` (amount, creditor reference each).
    fn entry(amount: &str, bank: Option<&str>, transactions: &[(&str, &str)]) -> String {
        let bank = bank
            .map(|b| format!("<AcctSvcrRef>{b}</AcctSvcrRef>"))
            .unwrap_or_default();
        let txs: String = transactions
            .iter()
            .map(|(amount, reference)| {
                format!(
                    "<TxDtls><Amt Ccy=\"CHF\">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>\
                     <RmtInf><Strd><CdtrRefInf><Ref>{reference}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls>"
                )
            })
            .collect();
        format!(
            "<Ntry><Amt Ccy=\"CHF\">{amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>\
             <BookgDt><Dt>2026-11-20</Dt></BookgDt>{bank}<NtryDtls>{txs}</NtryDtls></Ntry>"
        )
    }

    fn ids(outcome: &Outcome) -> Vec<String> {
        outcome
            .created
            .iter()
            .map(|c| match c {
                Created::WireTransfer(w) => w.transfer_uuid.clone(),
                Created::DirectDebit(d) => panic!("a direct debit: {d:?}"),
            })
            .collect()
    }

    #[test]
    fn a_credit_has_the_same_id_in_every_file_and_alike_credits_of_one_file_differ() {
        let entries = [
            entry("50.00", Some("B-1"), &[("50.00", "RF18539007547034")]),
            entry("7.00", None, &[("7.00", QR)]),
            entry("7.00", None, &[("7.00", QR)]),
        ]
        .concat();
        let first = processed("MSG-1", &entries);
        let again = processed("MSG-2", &entries);
        assert_eq!(ids(&first).len(), 3);
        assert_eq!(ids(&first), ids(&again));
        assert_ne!(ids(&first)[1], ids(&first)[2]);
        // The bank's reference names the credit, whatever else a later file says of it.
        let dated_later = processed(
            "MSG-3",
            &entry("50.00", Some("B-1"), &[("50.00", "RF18 5390 0754 7034")])
                .replace("2026-11-20", "2026-11-21"),
        );
        assert_eq!(ids(&dated_later)[0], ids(&first)[0]);
    }

    #[test]
    fn each_transaction_of_a_batch_is_a_transfer_or_unmatched_with_its_own_amount() {
        let outcome = processed(
            "MSG-1",
            &entry(
                "30.00",
                Some("B-7"),
                &[("12.50", QR), ("17.50", "210000000003139471430009018")],
            ),
        );
        let Created::WireTransfer(transfer) = &outcome.created[0] else {
            panic!("{outcome:?}");
        };
        assert_eq!(transfer.amount.value, Some(1250));
        assert_eq!(transfer.reference_type, ReferenceType::QrReference);
        assert_eq!(transfer.value_date, "2026-11-20");
        let unmatched = &outcome.unmatched[0];
        assert_eq!(unmatched.place.transaction, Some(1));
        assert_eq!(unmatched.amount.value, Some(1750));
        assert_eq!(
            unmatched.reason,
            "QR reference 210000000003139471430009018 fails its check digit (mod 10 recursive)"
        );
    }

    const QR: &str = "210000000003139471430009017";
}
