//! One `Ntry`, read in a single pass over its children. Its transactions (`TxDtls`) are
//! handed to the caller, which reads each from a tree of its own (chunks.rs), and then
//! checks the entry's batch with them.
//!
//! Version differences handled here: `Sts` is text up to camt.05x.001.07 and `Sts/Cd` (or
//! `Sts/Prtry`) from .08; dates are `Dt` or `DtTm` in every version.

use roxmltree::Node;

use crate::amount::{Amount, parse_decimal};
use crate::batch_check::{TotalOverflow, check_batch};
use crate::dates::parse_date_or_date_time;
use crate::document::{Batch, Direction, Entry};
use crate::error::CamtError;
use crate::xml::{child, descend, elements, line, owned, text};

/// The entry without its transactions: the `TxDtls` elements under every `NtryDtls` are
/// pushed to `details`, in order.
pub(crate) fn read_entry<'a, 'input>(
    node: Node<'a, 'input>,
    index: usize,
    details: &mut Vec<Node<'a, 'input>>,
) -> Result<Entry, CamtError> {
    let mut amount = None;
    let mut direction = None;
    let mut reversal = false;
    let mut status = None;
    let mut booking_date = None;
    let mut value_date = None;
    let mut entry_reference = None;
    let mut account_servicer_reference = None;
    let mut bank_transaction_code = None;
    let mut additional_info = None;
    let mut batch = None;

    for part in elements(node) {
        match part.tag_name().name() {
            "Amt" => amount = Some(read_amount(part, "Ntry/Amt")?),
            "CdtDbtInd" => direction = Some(read_direction(part, "Ntry/CdtDbtInd")?),
            "RvslInd" => reversal = read_bool(part, "Ntry/RvslInd")?,
            "Sts" => status = read_status(part),
            "BookgDt" => booking_date = read_date(part, "Ntry/BookgDt")?,
            "ValDt" => value_date = read_date(part, "Ntry/ValDt")?,
            "NtryRef" => entry_reference = owned(part),
            "AcctSvcrRef" => account_servicer_reference = owned(part),
            "BkTxCd" => bank_transaction_code = read_bank_transaction_code(part),
            "AddtlNtryInf" => additional_info = owned(part),
            "NtryDtls" => {
                for detail in elements(part) {
                    match detail.tag_name().name() {
                        "Btch" if batch.is_none() => batch = Some(read_batch(detail)?),
                        "TxDtls" => details.push(detail),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    let amount = amount.ok_or(CamtError::Missing { path: "Ntry/Amt" })?;
    let direction = direction.ok_or(CamtError::Missing {
        path: "Ntry/CdtDbtInd",
    })?;
    Ok(Entry {
        index,
        amount,
        direction,
        reversal,
        status,
        booking_date,
        value_date,
        entry_reference,
        account_servicer_reference,
        bank_transaction_code,
        additional_info,
        batch,
        transactions: Vec::new(),
        batch_mismatch: None,
    })
}

/// Sets the entry's batch mismatch once its transactions are read; `node` is its `Ntry`.
pub(crate) fn check_entry(entry: &mut Entry, node: Node<'_, '_>) -> Result<(), CamtError> {
    entry.batch_mismatch = check_batch(
        &entry.amount,
        entry.direction,
        entry.batch.as_ref(),
        &entry.transactions,
    )
    .map_err(|TotalOverflow| CamtError::BadAmount {
        path: "Ntry/NtryDtls/TxDtls/Amt",
        line: line(node),
        value: entry.amount.value.to_string(),
        reason: "the entry's transaction amounts add up to more than can be held exactly",
    })?;
    Ok(())
}

/// An element such as `<Amt Ccy="EUR">8.85</Amt>`.
pub(crate) fn read_amount(node: Node<'_, '_>, path: &'static str) -> Result<Amount, CamtError> {
    let bad = |value: &str, reason| CamtError::BadAmount {
        path,
        line: line(node),
        value: value.to_owned(),
        reason,
    };
    let currency = node.attribute("Ccy").unwrap_or("").trim();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(bad(
            currency,
            "the currency (Ccy) must be three capital letters",
        ));
    }
    let written = text(node).unwrap_or("");
    let value = parse_decimal(written).map_err(|reason| bad(written, reason))?;
    Ok(Amount {
        currency: currency.to_owned(),
        value,
    })
}

pub(crate) fn read_direction(
    node: Node<'_, '_>,
    path: &'static str,
) -> Result<Direction, CamtError> {
    let code = text(node).unwrap_or("");
    Direction::from_code(code).ok_or_else(|| CamtError::BadValue {
        path,
        line: line(node),
        value: code.to_owned(),
    })
}

fn read_bool(node: Node<'_, '_>, path: &'static str) -> Result<bool, CamtError> {
    match text(node).unwrap_or("") {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(CamtError::BadValue {
            path,
            line: line(node),
            value: other.to_owned(),
        }),
    }
}

fn read_status(node: Node<'_, '_>) -> Option<String> {
    child(node, "Cd")
        .or_else(|| child(node, "Prtry"))
        .map_or_else(|| owned(node), owned)
}

/// `Dt` or `DtTm` below `node`; `None` when it has neither.
fn read_date(node: Node<'_, '_>, path: &'static str) -> Result<Option<time::Date>, CamtError> {
    let Some(value) = child(node, "Dt").or_else(|| child(node, "DtTm")) else {
        return Ok(None);
    };
    let written = text(value).unwrap_or("");
    parse_date_or_date_time(written)
        .map(Some)
        .ok_or_else(|| CamtError::BadDate {
            path,
            line: line(value),
            value: written.to_owned(),
        })
}

/// `PMNT/RCDT/ESCT` from the ISO domain, else the bank's proprietary code.
fn read_bank_transaction_code(node: Node<'_, '_>) -> Option<String> {
    if let Some(domain) = child(node, "Domn")
        && let Some(code) = child(domain, "Cd").and_then(text)
    {
        let family = child(domain, "Fmly");
        let family_code = family.and_then(|f| child(f, "Cd")).and_then(text);
        let sub_family = family.and_then(|f| child(f, "SubFmlyCd")).and_then(text);
        return Some(match (family_code, sub_family) {
            (Some(f), Some(s)) => format!("{code}/{f}/{s}"),
            (Some(f), None) => format!("{code}/{f}"),
            _ => code.to_owned(),
        });
    }
    descend(node, &["Prtry", "Cd"]).and_then(owned)
}

fn read_batch(node: Node<'_, '_>) -> Result<Batch, CamtError> {
    let mut batch = Batch {
        message_id: None,
        payment_information_id: None,
        number_of_transactions: None,
        total: None,
        direction: None,
    };
    for part in elements(node) {
        match part.tag_name().name() {
            "MsgId" => batch.message_id = owned(part),
            "PmtInfId" => batch.payment_information_id = owned(part),
            "NbOfTxs" => {
                let written = text(part).unwrap_or("");
                let count = written.parse().map_err(|_| CamtError::BadValue {
                    path: "Ntry/NtryDtls/Btch/NbOfTxs",
                    line: line(part),
                    value: written.to_owned(),
                })?;
                batch.number_of_transactions = Some(count);
            }
            "TtlAmt" => batch.total = Some(read_amount(part, "Ntry/NtryDtls/Btch/TtlAmt")?),
            "CdtDbtInd" => {
                batch.direction = Some(read_direction(part, "Ntry/NtryDtls/Btch/CdtDbtInd")?)
            }
            _ => {}
        }
    }
    Ok(batch)
}
