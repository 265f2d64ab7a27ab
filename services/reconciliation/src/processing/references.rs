//! The texts of an entry where a bank may carry the reference its customer gave, and how
//! a reference is looked for in them.

use coffer_camt::Entry;

/// Every reference-like text of the entry and its transactions.
pub fn texts(entry: &Entry) -> Vec<&str> {
    let mut out: Vec<&str> = [
        &entry.entry_reference,
        &entry.account_servicer_reference,
        &entry.additional_info,
    ]
    .into_iter()
    .flatten()
    .map(String::as_str)
    .collect();
    for tx in &entry.transactions {
        out.extend(
            [
                &tx.end_to_end_id,
                &tx.instruction_id,
                &tx.transaction_id,
                &tx.account_servicer_reference,
                &tx.creditor_reference,
                &tx.additional_info,
            ]
            .into_iter()
            .flatten()
            .map(String::as_str),
        );
        out.extend(tx.unstructured_remittance.iter().map(String::as_str));
    }
    out
}

/// Writes `text` upper case without blanks into `out`: banks wrap, space and case
/// remittance lines as they please.
pub fn normalise_into(out: &mut String, text: &str) {
    out.clear();
    out.extend(
        text.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_uppercase),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_is_normalised_across_spaces_and_case() {
        let mut out = String::from("left over");
        normalise_into(&mut out, "Payout cpo 20261126 a1b2c3d4\nthank you");
        assert_eq!(out, "PAYOUTCPO20261126A1B2C3D4THANKYOU");
    }
}
