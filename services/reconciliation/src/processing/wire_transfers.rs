//! `match_wire_transfers`: a booked credit whose transaction carries a structured creditor
//! reference (ISO 11649, `RF…`) or a Swiss QR reference is a transfer for payments to
//! record as a payment. Only `RmtInf/Strd/CdtrRefInf/Ref` is read for the reference: the
//! payer's bank carried it as the creditor issued it, while free remittance text holds
//! whatever the payer typed.

use std::collections::HashMap;

use coffer_camt::{Direction, Document, Entry, Transaction};
use uuid::Uuid;

use super::Context;
use super::entries;
use super::outcome::{Created, Outcome, Place, WireTransfer};
use super::references::normalise_into;

/// Names Coffer's ids for credits (uuid v5), so the same credit read again (a file sent
/// twice under another message id, a notification and then the day's statement) gets the
/// same id, and payments records it once.
const TRANSFERS: Uuid = Uuid::from_u128(0x3b9e_47c1_d05a_4e8f_b2a6_71c4_98e3_0f5d);

coffer_model::text_enum! {
    /// Which scheme a transfer's reference follows.
    pub enum ReferenceType {
        /// ISO 11649: `RF`, two check digits (mod 97), then 1 to 21 letters or digits.
        CreditorReference => "creditor_reference",
        /// The Swiss QR bill's (and the orange slip's before it): 27 digits, the last a
        /// check digit (mod 10, recursive).
        QrReference => "qr_reference",
    }
}

/// A reference whose check digits hold, in its electronic form: upper case, no blanks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub text: String,
    pub kind: ReferenceType,
}

/// Why a creditor reference names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error(
        "creditor reference {0} is not RF, two check digits and 1 to 21 letters or digits (ISO 11649)"
    )]
    CreditorShape(String),
    #[error("creditor reference {0} fails its check digits (ISO 11649, mod 97)")]
    CreditorCheck(String),
    #[error("QR reference {0} fails its check digit (mod 10 recursive)")]
    QrCheck(String),
    #[error(
        "creditor reference {0} is neither an RF creditor reference nor a QR reference of 27 digits"
    )]
    Unknown(String),
}

impl Reference {
    /// Reads a creditor reference as banks write it (paper forms group it in blocks, some
    /// write it in lower case) and checks its check digits.
    pub fn parse(raw: &str) -> Result<Self, ReferenceError> {
        let mut text = String::with_capacity(raw.len());
        normalise_into(&mut text, raw);
        if let Some(rest) = text.strip_prefix("RF") {
            let shaped = (3..=23).contains(&rest.len())
                && rest.bytes().take(2).all(|b| b.is_ascii_digit())
                && rest.bytes().all(|b| b.is_ascii_alphanumeric());
            if !shaped {
                return Err(ReferenceError::CreditorShape(text));
            }
            // 00, 01 and 99 are never made by the algorithm, though 00 and 99 can pass it.
            let (check, body) = rest.split_at(2);
            if !("02"..="98").contains(&check) || mod97(body, check) != 1 {
                return Err(ReferenceError::CreditorCheck(text));
            }
            return Ok(Reference {
                text,
                kind: ReferenceType::CreditorReference,
            });
        }
        if text.len() != 27 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ReferenceError::Unknown(text));
        }
        let (digits, check) = text.as_bytes().split_at(26);
        if check != [b'0' + mod10_recursive(digits)] {
            return Err(ReferenceError::QrCheck(text));
        }
        Ok(Reference {
            text,
            kind: ReferenceType::QrReference,
        })
    }
}

/// ISO 7064 mod 97-10 over `body`, then `RF` and the check digits (the four moved to the
/// end), letters counting A = 10 to Z = 35: 1 when the check digits hold. Folded digit by
/// digit, so a reference of any length stays within a u32.
fn mod97(body: &str, check: &str) -> u32 {
    body.bytes()
        .chain(*b"RF")
        .chain(check.bytes())
        .fold(0, |rest, b| match b {
            b'0'..=b'9' => (rest * 10 + u32::from(b - b'0')) % 97,
            _ => (rest * 100 + u32::from(b - b'A') + 10) % 97,
        })
}

/// The check digit of a QR (or orange-slip) reference's first 26 digits.
fn mod10_recursive(digits: &[u8]) -> u8 {
    const CARRY: [u8; 10] = [0, 9, 4, 6, 8, 2, 7, 1, 3, 5];
    let carry = digits.iter().fold(0u8, |carry, d| {
        CARRY[usize::from((carry + (d - b'0')) % 10)]
    });
    (10 - carry) % 10
}

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

    fn kind(raw: &str) -> Result<ReferenceType, ReferenceError> {
        Reference::parse(raw).map(|r| r.kind)
    }

    /// Which check refused each of `raw`, by its error's name.
    fn refusals(raw: &[&str]) -> Vec<&'static str> {
        raw.iter()
            .map(|r| match Reference::parse(r) {
                Ok(_) => "none",
                Err(ReferenceError::CreditorShape(_)) => "shape",
                Err(ReferenceError::CreditorCheck(_)) => "mod 97",
                Err(ReferenceError::QrCheck(_)) => "mod 10",
                Err(ReferenceError::Unknown(_)) => "unknown",
            })
            .collect()
    }

    #[test]
    fn rf_creditor_references_hold_by_their_check_digits() {
        for valid in [
            "RF18539007547034",
            "RF18 5390 0754 7034",
            "rf18539007547034",
            "RF38000000000000000000552",
            "RF40COFFER2026",
            "RF22DONATION1",
            "RF02COFFER22",
            "RF97COFFER58",
        ] {
            assert_eq!(kind(valid), Ok(ReferenceType::CreditorReference), "{valid}");
        }
        assert_eq!(
            Reference::parse("RF18 5390 0754 7034").unwrap().text,
            "RF18539007547034"
        );
        assert_eq!(
            refusals(&["RF19539007547034", "RF18539007547035", "RF40COFFER2027"]),
            ["mod 97"; 3]
        );
        // 99 and 00 pass mod 97 where the check is 02 or 97, but the algorithm never
        // writes them.
        assert_eq!((mod97("COFFER22", "99"), mod97("COFFER58", "00")), (1, 1));
        assert_eq!(refusals(&["RF99COFFER22", "RF00COFFER58"]), ["mod 97"; 2]);
    }

    #[test]
    fn an_rf_reference_out_of_shape_is_refused_before_its_check() {
        let wrong = [
            "RF18",
            "RFAB539007547034",
            "RF18-5390-0754",
            "RF1812345678901234567890123",
        ];
        assert_eq!(refusals(&wrong), ["shape"; 4]);
    }

    #[test]
    fn qr_references_hold_by_their_recursive_check_digit() {
        for valid in [
            "210000000003139471430009017",
            "21 00000 00003 13947 14300 09017",
            "000000000002016030002820804",
            "120000000000234478943216899",
        ] {
            assert_eq!(kind(valid), Ok(ReferenceType::QrReference), "{valid}");
        }
        assert_eq!(
            refusals(&["210000000003139471430009018", "120000000000234478943216890"]),
            ["mod 10"; 2]
        );
    }

    #[test]
    fn other_references_are_neither() {
        let other = [
            "2100000000031394714300090",
            "INV-2026-11",
            "1234567890123456",
            "",
        ];
        assert_eq!(refusals(&other), ["unknown"; 4]);
        assert_eq!(
            Reference::parse("INV 2026").unwrap_err().to_string(),
            "creditor reference INV2026 is neither an RF creditor reference nor a QR reference of 27 digits"
        );
    }
}
