//! What a camt.053 statement or camt.054 notification says, in the shape reconciliation
//! needs. Field names follow banking terms; the XML element each comes from is noted.
//!
//! Text values are trimmed, and an element that is absent or empty is `None`.

use serde::Serialize;
use time::Date;

use crate::amount::Amount;

// Dates serialise as `2014-12-31`, not as time's compact (year, ordinal) pair.
time::serde::format_description!(iso_date, Date, "[year]-[month]-[day]");

/// Which message the file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MessageType {
    /// Bank to customer statement (`BkToCstmrStmt`): booked entries of a day or period.
    #[serde(rename = "camt.053")]
    Camt053,
    /// Bank to customer debit/credit notification (`BkToCstmrDbtCdtNtfctn`).
    #[serde(rename = "camt.054")]
    Camt054,
}

impl MessageType {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageType::Camt053 => "camt.053",
            MessageType::Camt054 => "camt.054",
        }
    }
}

/// One camt file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    pub message_type: MessageType,
    /// The full message identifier from the namespace, such as `camt.053.001.04`.
    pub version: String,
    /// `GrpHdr/MsgId`.
    pub message_id: String,
    /// `GrpHdr/CreDtTm` as written.
    pub created_at: Option<String>,
    /// `Stmt` (camt.053) or `Ntfctn` (camt.054) elements, in file order; never empty.
    pub statements: Vec<Statement>,
}

/// One account's statement (camt.053 `Stmt`) or notification (camt.054 `Ntfctn`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statement {
    /// `Id`.
    pub id: String,
    /// `Acct`.
    pub account: Account,
    /// `CreDtTm` as written.
    pub created_at: Option<String>,
    /// `Ntry` elements, in file order.
    pub entries: Vec<Entry>,
}

/// The account the statement is for (`Acct`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Account {
    /// `Id/IBAN`.
    pub iban: Option<String>,
    /// `Id/Othr/Id`, for accounts without an IBAN.
    pub other_id: Option<String>,
    /// `Ccy`.
    pub currency: Option<String>,
    /// `Ownr/Nm`.
    pub owner_name: Option<String>,
}

/// Which way money moved on the account (`CdtDbtInd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `CRDT`: money came in.
    Credit,
    /// `DBIT`: money went out.
    Debit,
}

impl Direction {
    /// The ISO code, `CRDT` or `DBIT`.
    pub fn as_code(self) -> &'static str {
        match self {
            Direction::Credit => "CRDT",
            Direction::Debit => "DBIT",
        }
    }

    pub(crate) fn from_code(code: &str) -> Option<Self> {
        match code {
            "CRDT" => Some(Direction::Credit),
            "DBIT" => Some(Direction::Debit),
            _ => None,
        }
    }
}

/// One booking on the account (`Ntry`). A batch booking is one entry with many transactions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// Position of the entry within its statement, from 0.
    pub index: usize,
    /// `Amt` with its `Ccy`.
    pub amount: Amount,
    /// `CdtDbtInd`.
    pub direction: Direction,
    /// `RvslInd`: the entry undoes an earlier one (a return or a chargeback).
    pub reversal: bool,
    /// `Sts` or `Sts/Cd`: `BOOK`, `PDNG`, `INFO`…
    pub status: Option<String>,
    /// `BookgDt/Dt` or the date of `BookgDt/DtTm`.
    #[serde(serialize_with = "iso_date::option::serialize")]
    pub booking_date: Option<Date>,
    /// `ValDt/Dt` or the date of `ValDt/DtTm`.
    #[serde(serialize_with = "iso_date::option::serialize")]
    pub value_date: Option<Date>,
    /// `NtryRef`.
    pub entry_reference: Option<String>,
    /// `AcctSvcrRef`: the bank's own reference for the entry.
    pub account_servicer_reference: Option<String>,
    /// `BkTxCd/Domn` as `PMNT/RCDT/ESCT` (domain/family/sub-family), else `BkTxCd/Prtry/Cd`.
    pub bank_transaction_code: Option<String>,
    /// `AddtlNtryInf`.
    pub additional_info: Option<String>,
    /// `NtryDtls/Btch` (the first, should a bank send several).
    pub batch: Option<Batch>,
    /// `NtryDtls/TxDtls`, across every `NtryDtls`.
    pub transactions: Vec<Transaction>,
    /// Set when the transaction details or the batch total disagree with the entry amount.
    pub batch_mismatch: Option<BatchMismatch>,
}

/// What the bank says about a batch booking (`NtryDtls/Btch`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batch {
    /// `MsgId` of the payment message the batch came from.
    pub message_id: Option<String>,
    /// `PmtInfId`: the payment information block (for a direct debit run, the collection).
    pub payment_information_id: Option<String>,
    /// `NbOfTxs`.
    pub number_of_transactions: Option<u64>,
    /// `TtlAmt` with its `Ccy`.
    pub total: Option<Amount>,
    /// `CdtDbtInd` of the total.
    pub direction: Option<Direction>,
}

/// How an entry's parts fail to add up. Each field is set only when its check failed.
/// Totals are counted in the entry's direction: a part booked the other way subtracts, so
/// a total may be negative.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchMismatch {
    /// What the transaction amounts add up to, when every transaction has one in the
    /// entry's currency and they do not make the entry amount.
    pub transactions_total: Option<Amount>,
    /// A transaction currency that is not the entry's, which makes the amounts
    /// impossible to add up.
    pub foreign_currency: Option<String>,
    /// `Btch/TtlAmt`, when it is not the entry amount.
    pub batch_total: Option<Amount>,
}

/// One payment inside an entry (`TxDtls`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Transaction {
    /// `Amt` (camt.05x.001.03 and later), else `AmtDtls/TxAmt/Amt`.
    pub amount: Option<Amount>,
    /// `CdtDbtInd` (camt.05x.001.03 and later).
    pub direction: Option<Direction>,
    /// `Refs/EndToEndId`: the payer's reference, which Coffer sets on its own payments.
    pub end_to_end_id: Option<String>,
    /// `Refs/InstrId`.
    pub instruction_id: Option<String>,
    /// `Refs/MndtId`: the direct debit mandate.
    pub mandate_id: Option<String>,
    /// `Refs/TxId`.
    pub transaction_id: Option<String>,
    /// `Refs/UETR`.
    pub uetr: Option<String>,
    /// `Refs/AcctSvcrRef`.
    pub account_servicer_reference: Option<String>,
    /// `RmtInf/Strd/CdtrRefInf/Ref` (the first): an RF, QR or ISR reference.
    pub creditor_reference: Option<String>,
    /// `RmtInf/Ustrd`, each line.
    pub unstructured_remittance: Vec<String>,
    /// `RltdPties/Dbtr` with `RltdPties/DbtrAcct`.
    pub debtor: Option<Party>,
    /// `RltdPties/Cdtr` with `RltdPties/CdtrAcct`.
    pub creditor: Option<Party>,
    /// `RtrInf/Rsn/Cd` (or `Prtry`), such as `AC06` or `MD06`.
    pub return_reason: Option<String>,
    /// `AddtlTxInf`.
    pub additional_info: Option<String>,
}

/// A debtor or creditor. From camt.05x.001.08 the party sits under `Pty` (or, for a bank,
/// `Agt/FinInstnId`); both shapes land here.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Party {
    /// `Nm`.
    pub name: Option<String>,
    /// `Id/IBAN` of the party's account.
    pub iban: Option<String>,
    /// `PstlAdr/AdrLine`, each line.
    pub address_lines: Vec<String>,
    /// `PstlAdr/Ctry`.
    pub country: Option<String>,
    /// `PstlAdr/PstCd`.
    pub postal_code: Option<String>,
    /// `PstlAdr/TwnNm`.
    pub town: Option<String>,
    /// `PstlAdr/StrtNm`.
    pub street: Option<String>,
}
