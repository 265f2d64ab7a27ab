//! One `TxDtls`, read in a single pass over its children.
//!
//! Version differences handled here: camt.05x.001.02 has no `Amt` or `CdtDbtInd` on a
//! transaction, only `AmtDtls/TxAmt/Amt`; from .08 a related party's details sit under
//! `Pty` (or `Agt/FinInstnId` for a bank) instead of directly under `Dbtr`/`Cdtr`.

use roxmltree::Node;

use crate::document::{Party, Transaction};
use crate::error::CamtError;
use crate::read_entry::{read_amount, read_direction};
use crate::xml::{child, descend, elements, owned, owned_at};

pub(crate) fn read_transaction(node: Node<'_, '_>) -> Result<Transaction, CamtError> {
    let mut tx = Transaction::default();
    let mut amount_details = None;
    for part in elements(node) {
        match part.tag_name().name() {
            "Refs" => read_references(part, &mut tx),
            "Amt" => tx.amount = Some(read_amount(part, "TxDtls/Amt")?),
            "CdtDbtInd" => tx.direction = Some(read_direction(part, "TxDtls/CdtDbtInd")?),
            "AmtDtls" => amount_details = descend(part, &["TxAmt", "Amt"]),
            "RltdPties" => read_parties(part, &mut tx),
            "RmtInf" => read_remittance(part, &mut tx),
            "RtrInf" => {
                tx.return_reason = child(part, "Rsn")
                    .and_then(|r| child(r, "Cd").or_else(|| child(r, "Prtry")))
                    .and_then(owned)
            }
            "AddtlTxInf" => tx.additional_info = owned(part),
            _ => {}
        }
    }
    if tx.amount.is_none()
        && let Some(amount) = amount_details
    {
        tx.amount = Some(read_amount(amount, "TxDtls/AmtDtls/TxAmt/Amt")?);
    }
    Ok(tx)
}

fn read_references(node: Node<'_, '_>, tx: &mut Transaction) {
    for reference in elements(node) {
        let slot = match reference.tag_name().name() {
            "EndToEndId" => &mut tx.end_to_end_id,
            "InstrId" => &mut tx.instruction_id,
            "MndtId" => &mut tx.mandate_id,
            "TxId" => &mut tx.transaction_id,
            "UETR" => &mut tx.uetr,
            "AcctSvcrRef" => &mut tx.account_servicer_reference,
            _ => continue,
        };
        *slot = owned(reference);
    }
}

fn read_parties(node: Node<'_, '_>, tx: &mut Transaction) {
    let mut debtor_account = None;
    let mut creditor_account = None;
    for part in elements(node) {
        match part.tag_name().name() {
            "Dbtr" => tx.debtor = Some(read_party(part)),
            "Cdtr" => tx.creditor = Some(read_party(part)),
            "DbtrAcct" => debtor_account = owned_at(part, &["Id", "IBAN"]),
            "CdtrAcct" => creditor_account = owned_at(part, &["Id", "IBAN"]),
            _ => {}
        }
    }
    // An account without a named party still says who paid or was paid.
    if debtor_account.is_some() {
        tx.debtor.get_or_insert_with(Party::default).iban = debtor_account;
    }
    if creditor_account.is_some() {
        tx.creditor.get_or_insert_with(Party::default).iban = creditor_account;
    }
}

fn read_party(node: Node<'_, '_>) -> Party {
    let details = child(node, "Pty")
        .or_else(|| descend(node, &["Agt", "FinInstnId"]))
        .unwrap_or(node);
    let mut party = Party::default();
    for part in elements(details) {
        match part.tag_name().name() {
            "Nm" => party.name = owned(part),
            "PstlAdr" => {
                for line in elements(part) {
                    match line.tag_name().name() {
                        "AdrLine" => party.address_lines.extend(owned(line)),
                        "Ctry" => party.country = owned(line),
                        "PstCd" => party.postal_code = owned(line),
                        "TwnNm" => party.town = owned(line),
                        "StrtNm" => party.street = owned(line),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    party
}

fn read_remittance(node: Node<'_, '_>, tx: &mut Transaction) {
    for part in elements(node) {
        match part.tag_name().name() {
            "Ustrd" => tx.unstructured_remittance.extend(owned(part)),
            "Strd" if tx.creditor_reference.is_none() => {
                tx.creditor_reference = owned_at(part, &["CdtrRefInf", "Ref"]);
            }
            _ => {}
        }
    }
}
