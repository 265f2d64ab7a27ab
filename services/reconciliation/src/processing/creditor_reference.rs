//! A creditor reference as a transfer carries it: an ISO 11649 creditor reference (`RF…`)
//! or a Swiss QR reference, each held by its check digits.

use super::references::normalise_into;

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
