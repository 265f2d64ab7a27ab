//! A blueprint's rules: what a request must hold, and whether a file fits it.

use coffer_model::iban::Iban;
use coffer_model::text_enum;
use coffer_model::validation::{FieldError, Violations};
use serde::Deserialize;
use uuid::Uuid;

use crate::fields::{required_choice, required_text, required_uuid};

pub const MAX_NAME_CHARS: usize = 200;
/// IBANs and versions a blueprint may list: enough for any organisation's accounts.
pub const MAX_LIST: usize = 50;

text_enum! {
    /// The ISO 20022 message a blueprint reads.
    pub enum MessageType {
        /// A bank-to-customer statement: the day's booked entries.
        Camt053 => "camt.053",
        /// A bank-to-customer debit/credit notification, such as direct debits collected.
        Camt054 => "camt.054",
    }
}

text_enum! {
    /// What a blueprint does with a file's entries.
    pub enum Processing {
        /// camt.053: credits matched with the payouts of the test provider.
        MatchSettlementPayouts => "match_settlement_payouts",
        /// camt.054: direct debits collected settle their payments, or become ones.
        CreateDirectDebitPayments => "create_direct_debit_payments",
        /// camt.053 or camt.054: credits with a creditor (QR or RF) reference become
        /// payments.
        MatchWireTransfers => "match_wire_transfers",
    }
}

impl Processing {
    /// Whether the processing reads that message: payouts are on statements, collected
    /// direct debits on notifications, wire transfers on either.
    pub fn reads(self, message: MessageType) -> bool {
        match self {
            Processing::MatchSettlementPayouts => message == MessageType::Camt053,
            Processing::CreateDirectDebitPayments => message == MessageType::Camt054,
            Processing::MatchWireTransfers => true,
        }
    }
}

/// A create request as it arrives; every property is checked by [`BlueprintRequest::check`].
/// Properties it does not name are ignored.
// As API.md's conventions say. A refund refuses them, since a misspelt amount would refund
// the whole payment; here a misspelt optional property (`iban`) leaves its default, which
// the answer shows.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct BlueprintRequest {
    pub name: Option<String>,
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<String>,
    /// `camt.053` or `camt.054`.
    pub message_type: Option<String>,
    /// `match_settlement_payouts` (camt.053), `create_direct_debit_payments` (camt.054) or
    /// `match_wire_transfers`.
    pub processing: Option<String>,
    /// The versions accepted, such as `camt.053.001.04`; all supported (.02 to .10) when
    /// absent or empty.
    pub versions: Option<Vec<String>>,
    /// The account IBANs a file may report; any when absent or empty.
    pub ibans: Option<Vec<String>>,
}

/// A blueprint request that holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlueprintInput {
    pub name: String,
    pub organisation_uuid: Uuid,
    pub account_uuid: Uuid,
    pub message_type: MessageType,
    pub processing: Processing,
    pub versions: Vec<String>,
    pub ibans: Vec<String>,
}

/// The versions Coffer reads: .001.02 to .001.10 of each message.
pub fn supported_version(message: MessageType, version: &str) -> bool {
    version
        .strip_prefix(message.as_str())
        .and_then(|rest| rest.strip_prefix(".001."))
        .and_then(|n| n.parse::<u8>().ok())
        .is_some_and(|n| (2..=10).contains(&n) && version.len() == message.as_str().len() + 7)
}

fn list_bound(v: &mut Violations, property: &str, list: &[String]) -> bool {
    if list.len() > MAX_LIST {
        v.push(FieldError::not_valid(
            property,
            format!("must hold at most {MAX_LIST} items"),
        ));
        return false;
    }
    true
}

impl BlueprintRequest {
    /// Every offending property is named, not only the first.
    pub fn check(self) -> Result<BlueprintInput, Vec<FieldError>> {
        let mut v = Violations::new();
        let name = required_text(&mut v, "name", self.name.as_deref(), MAX_NAME_CHARS);
        let organisation = required_uuid(
            &mut v,
            "organisation_uuid",
            self.organisation_uuid.as_deref(),
        );
        let account = required_uuid(&mut v, "account_uuid", self.account_uuid.as_deref());
        let message = required_choice(
            &mut v,
            "message_type",
            self.message_type.as_deref(),
            MessageType::parse,
            "must be camt.053 or camt.054",
        );
        let processing = required_choice(
            &mut v,
            "processing",
            self.processing.as_deref(),
            Processing::parse,
            "must be match_settlement_payouts, create_direct_debit_payments or match_wire_transfers",
        );
        if let (Some(m), Some(p)) = (message, processing)
            && !p.reads(m)
        {
            v.push(FieldError::not_valid(
                "processing",
                format!("{p} does not read {m} files"),
            ));
        }
        let versions = self.versions.unwrap_or_default();
        if list_bound(&mut v, "versions", &versions)
            && let Some(m) = message
        {
            for (i, version) in versions.iter().enumerate() {
                if !supported_version(m, version) {
                    v.push(FieldError::not_valid(
                        format!("versions[{i}]"),
                        format!("must be a {m} version from {m}.001.02 to {m}.001.10"),
                    ));
                }
            }
        }
        let mut ibans = Vec::new();
        let raw_ibans = self.ibans.unwrap_or_default();
        if list_bound(&mut v, "ibans", &raw_ibans) {
            for (i, raw) in raw_ibans.iter().enumerate() {
                if let Some(iban) = v.check(Iban::parse_field(&format!("ibans[{i}]"), raw)) {
                    ibans.push(iban.as_str().to_owned());
                }
            }
        }
        match (name, organisation, account, message, processing) {
            (
                Some(name),
                Some(organisation_uuid),
                Some(account_uuid),
                Some(message_type),
                Some(processing),
            ) if v.is_empty() => Ok(BlueprintInput {
                name,
                organisation_uuid,
                account_uuid,
                message_type,
                processing,
                versions,
                ibans,
            }),
            _ => Err(v.into_vec()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn request() -> BlueprintRequest {
        BlueprintRequest {
            name: Some("Statements".into()),
            organisation_uuid: Some(Uuid::nil().to_string()),
            account_uuid: Some(Uuid::nil().to_string()),
            message_type: Some("camt.053".into()),
            processing: Some("match_settlement_payouts".into()),
            versions: Some(vec!["camt.053.001.04".into()]),
            ibans: Some(vec!["CH93 0076 2011 6238 5295 7".into()]),
        }
    }

    #[test]
    fn a_whole_request_holds_and_ibans_are_kept_in_their_electronic_form() {
        let input = request().check().unwrap();
        assert_eq!(input.ibans, vec!["CH9300762011623852957".to_owned()]);
        assert_eq!(input.processing, Processing::MatchSettlementPayouts);
    }

    #[test]
    fn every_offending_property_is_named() {
        let mut r = request();
        r.name = Some(" ".into());
        r.message_type = Some("camt.054".into());
        r.versions = Some(vec!["camt.054.001.11".into(), "x".into()]);
        r.ibans = Some(vec!["CH00".into()]);
        let named: Vec<String> = r
            .check()
            .unwrap_err()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(
            named,
            [
                "name",
                "processing",
                "versions[0]",
                "versions[1]",
                "ibans[0]"
            ]
        );
    }

    #[test]
    fn versions_two_to_ten_are_read() {
        assert!(supported_version(MessageType::Camt053, "camt.053.001.02"));
        assert!(supported_version(MessageType::Camt054, "camt.054.001.10"));
        assert!(!supported_version(MessageType::Camt053, "camt.054.001.04"));
        assert!(!supported_version(MessageType::Camt053, "camt.053.001.1"));
        assert!(!supported_version(MessageType::Camt053, "camt.053.001.010"));
    }
}
