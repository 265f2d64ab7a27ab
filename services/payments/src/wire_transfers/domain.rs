//! A wire transfer as a bank file reports it, read from reconciliation's event, and the
//! payment it is recorded as.

use coffer_model::iban::Iban;
use coffer_model::money::Money;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::shared::method::{PaymentMethod, masked_iban};
use crate::shared::record::Payment;

/// Which scheme the transfer's reference follows; reconciliation checked its digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceType {
    /// ISO 11649, `RF…`.
    CreditorReference,
    /// A Swiss QR reference of 27 digits.
    QrReference,
}

/// One credit as reconciliation announced it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Transfer {
    /// Reconciliation's id for the credit, the same in every file that reports it: the
    /// payment takes it, so the same credit never makes two.
    pub transfer_uuid: uuid::Uuid,
    pub organisation_uuid: uuid::Uuid,
    pub account_uuid: uuid::Uuid,
    pub amount: Money,
    /// YYYY-MM-DD.
    pub value_date: String,
    pub reference: String,
    pub reference_type: ReferenceType,
    #[serde(default)]
    pub debtor: Option<Debtor>,
}

/// Who paid, as the bank names them (`RltdPties/Dbtr` and `DbtrAcct`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Debtor {
    pub name: Option<String>,
    pub iban: Option<String>,
    #[serde(default)]
    pub address_lines: Vec<String>,
    pub street: Option<String>,
    pub postal_code: Option<String>,
    pub town: Option<String>,
    pub country: Option<String>,
}

impl Transfer {
    /// Reads the event's `data`; the error names what is missing or wrong.
    pub fn read(data: &Value) -> Result<Self, String> {
        let transfer = Transfer::deserialize(data).map_err(|e| e.to_string())?;
        if transfer.amount.value <= 0 {
            return Err("no positive amount.value".into());
        }
        let day = time::macros::format_description!("[year]-[month]-[day]");
        if time::Date::parse(&transfer.value_date, day).is_err() {
            return Err(format!("value_date {} is not a date", transfer.value_date));
        }
        if transfer.reference.trim().is_empty() {
            return Err("an empty reference".into());
        }
        Ok(transfer)
    }

    /// The succeeded payment the credit is: the debtor as its supporter snapshot (no
    /// supporter record is made from a bank file), the reference with the payer's masked
    /// account in its `payment_information`.
    pub fn payment(&self, now: i64) -> Payment {
        let (name, iban) = self
            .debtor
            .as_ref()
            .map_or((None, None), |d| (d.name.as_deref(), d.iban.as_deref()));
        Payment {
            supporter: self.debtor.as_ref().map(Debtor::supporter_snapshot),
            payment_information: json!({
                "reference": self.reference,
                "reference_type": self.reference_type,
                "iban": iban.and_then(|i| Iban::parse(i).ok()).map(|i| masked_iban(&i)),
                "account_holder": name,
            }),
            ..Payment::from_bank_file(
                self.transfer_uuid.to_string(),
                self.organisation_uuid.to_string(),
                self.account_uuid.to_string(),
                PaymentMethod::BankTransfer,
                self.amount,
                now,
            )
        }
    }
}

impl Debtor {
    /// The supporter snapshot: the fields of a supporter the bank's details fill.
    fn supporter_snapshot(&self) -> Value {
        let address = self.address_lines.join(", ");
        let fields = [
            ("raw_name", self.name.as_deref()),
            ("street", self.street.as_deref()),
            ("postal_code", self.postal_code.as_deref()),
            ("city", self.town.as_deref()),
            ("country", self.country.as_deref()),
            (
                "raw_address",
                Some(address.as_str()).filter(|a| !a.is_empty()),
            ),
        ];
        Value::Object(
            fields
                .into_iter()
                .filter_map(|(k, v)| Some((k.to_owned(), json!(v?))))
                .collect(),
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::shared::record::PaymentStatus;

    fn data() -> Value {
        json!({
            "transfer_uuid": "6f1c9a52-0d3e-5b7a-9c41-2e8f7a6b5d30",
            "organisation_uuid": "0b6f3a2e-1c4d-4e5f-8a9b-7c6d5e4f3a2b",
            "account_uuid": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
            "report_uuid": "r",
            "amount": {"value": "12500", "currency": "CHF"}, "value_date": "2026-11-20",
            "reference": "RF18539007547034", "reference_type": "creditor_reference",
            "debtor": {"name": "Ada Muster", "iban": "CH9300762011623852957", "town": "Bern",
                       "address_lines": ["Gasse 1", "3000 Bern"], "country": null}
        })
    }

    #[test]
    fn a_transfer_is_recorded_as_a_succeeded_bank_transfer() {
        let payment = Transfer::read(&data()).unwrap().payment(1_795_000_000);
        assert_eq!(payment.uuid, "6f1c9a52-0d3e-5b7a-9c41-2e8f7a6b5d30");
        assert_eq!(payment.payment_method, PaymentMethod::BankTransfer);
        assert_eq!(payment.status, PaymentStatus::Succeeded);
        assert_eq!(payment.payment_provider, "bank_file");
        assert_eq!(payment.amount.value, 12500);
        assert_eq!(
            payment.supporter,
            Some(
                json!({"raw_name": "Ada Muster", "city": "Bern", "raw_address": "Gasse 1, 3000 Bern"})
            )
        );
        assert_eq!(
            payment.payment_information,
            json!({"reference": "RF18539007547034", "reference_type": "creditor_reference",
                   "iban": "CH93*************2957", "account_holder": "Ada Muster"})
        );
    }

    #[test]
    fn a_transfer_without_a_debtor_has_no_supporter() {
        let mut d = data();
        d.as_object_mut().unwrap().remove("debtor");
        let payment = Transfer::read(&d).unwrap().payment(0);
        assert_eq!(payment.supporter, None);
        assert_eq!(payment.payment_information["iban"], Value::Null);
    }

    #[test]
    fn a_missing_or_wrong_field_is_named() {
        let mut d = data();
        d["amount"]["value"] = json!("0");
        assert_eq!(Transfer::read(&d).unwrap_err(), "no positive amount.value");
        d["amount"]["value"] = json!("5");
        d["value_date"] = json!("20.11.2026");
        assert_eq!(
            Transfer::read(&d).unwrap_err(),
            "value_date 20.11.2026 is not a date"
        );
        d["reference_type"] = json!("isr");
        assert!(Transfer::read(&d).unwrap_err().contains("isr"));
        d = data();
        d.as_object_mut().unwrap().remove("transfer_uuid");
        assert!(
            Transfer::read(&d)
                .unwrap_err()
                .contains("missing field `transfer_uuid`")
        );
    }
}
