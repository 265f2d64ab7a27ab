//! A direct debit as a notification reports it, read from reconciliation's event.

use coffer_model::currency::Currency;
use coffer_model::money::Money;
use serde_json::{Value, json};

/// Banks write this where the creditor gave no EndToEndId; it names no payment.
const NOT_PROVIDED: &str = "NOTPROVIDED";

/// One collection (or its return) as reconciliation announced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    /// Reconciliation's stable id for this transaction of this file: a payment recorded
    /// for it takes this uuid, so the same transaction never makes two.
    pub debit_uuid: String,
    pub account_uuid: String,
    pub organisation_uuid: String,
    pub amount: Money,
    pub value_date: String,
    pub end_to_end_id: Option<String>,
    pub mandate_reference: Option<String>,
    pub debtor_name: Option<String>,
    pub debtor_iban: Option<String>,
    /// The return's ISO reason code, for a return.
    pub reason: Option<String>,
    /// Where the debtor lives, as the file gives it.
    pub debtor_address: Value,
}

fn text(data: &Value, path: &str) -> Option<String> {
    data.pointer(path)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl Reported {
    /// Reads the event's `data`; the error names the field that is missing or wrong.
    pub fn read(data: &Value) -> Result<Self, String> {
        let need = |path: &str| text(data, path).ok_or_else(|| format!("no {path}"));
        let currency = Currency::parse(&need("/amount/currency")?)
            .map_err(|_| "an unknown /amount/currency".to_owned())?;
        // Money in events is minor units as a string of digits, as the API writes it.
        let value = text(data, "/amount/value")
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|v| *v > 0)
            .ok_or("no positive /amount/value")?;
        Ok(Reported {
            debit_uuid: need("/debit_uuid")?,
            account_uuid: need("/account_uuid")?,
            organisation_uuid: need("/organisation_uuid")?,
            amount: Money { value, currency },
            value_date: need("/value_date")?,
            end_to_end_id: text(data, "/end_to_end_id").filter(|id| id != NOT_PROVIDED),
            mandate_reference: text(data, "/mandate_reference"),
            debtor_name: text(data, "/debtor/name"),
            debtor_iban: text(data, "/debtor/iban"),
            reason: text(data, "/reason"),
            debtor_address: json!({
                "street": text(data, "/debtor/street"),
                "postal_code": text(data, "/debtor/postal_code"),
                "city": text(data, "/debtor/town"),
                "country": text(data, "/debtor/country"),
                "raw_address": data.pointer("/debtor/address_lines").and_then(Value::as_array)
                    .map(|lines| lines.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
                    .filter(|s| !s.is_empty()),
            }),
        })
    }

    /// The supporter snapshot of a payment recorded from the file: the debtor as the bank
    /// names them (no supporter record is made from a bank file).
    pub fn supporter_snapshot(&self) -> Value {
        let mut snapshot = self.debtor_address.clone();
        if let Some(map) = snapshot.as_object_mut() {
            map.retain(|_, v| !v.is_null());
            if let Some(name) = &self.debtor_name {
                map.insert("raw_name".into(), json!(name));
            }
        }
        snapshot
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn data() -> Value {
        json!({
            "debit_uuid": "d", "account_uuid": "a", "organisation_uuid": "o",
            "amount": {"value": "1250", "currency": "EUR"}, "value_date": "2026-11-20",
            "end_to_end_id": "NOTPROVIDED", "mandate_reference": "CFM-1",
            "debtor": {"name": "Ada Muster", "iban": "CH9300762011623852957", "town": "Bern",
                       "address_lines": ["Gasse 1", "3000 Bern"]}
        })
    }

    #[test]
    fn a_collection_is_read_and_notprovided_names_no_payment() {
        let r = Reported::read(&data()).unwrap();
        assert_eq!(r.amount.value, 1250);
        assert_eq!(r.end_to_end_id, None);
        assert_eq!(r.mandate_reference.as_deref(), Some("CFM-1"));
        assert_eq!(
            r.supporter_snapshot(),
            json!({"raw_name": "Ada Muster", "city": "Bern", "raw_address": "Gasse 1, 3000 Bern"})
        );
    }

    #[test]
    fn a_missing_or_wrong_field_is_named() {
        let mut d = data();
        d["amount"]["value"] = json!("0");
        assert_eq!(Reported::read(&d).unwrap_err(), "no positive /amount/value");
        d["amount"]["value"] = json!("5");
        d.as_object_mut().unwrap().remove("value_date");
        assert_eq!(Reported::read(&d).unwrap_err(), "no /value_date");
    }
}
