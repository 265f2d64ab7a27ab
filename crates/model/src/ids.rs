//! Identifiers travel as hyphenated UUID strings (SPEC.md conventions).

use crate::validation::FieldError;
use uuid::Uuid;

const HYPHENATED_LEN: usize = 36;

/// Parses the hyphenated form only; the braced, URN and bare forms `uuid` also knows are
/// refused so that every identifier has exactly one spelling on the wire.
pub fn parse_uuid(property: &str, raw: &str) -> Result<Uuid, FieldError> {
    let invalid = || FieldError::not_valid(property, "This value must be a UUID.");
    if raw.len() != HYPHENATED_LEN {
        return Err(invalid());
    }
    Uuid::try_parse(raw).map_err(|_| invalid())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepts_hyphenated_in_either_case() {
        let lower = parse_uuid("uuid", "67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap();
        let upper = parse_uuid("uuid", "67E55044-10B1-426F-9247-BB680E5FE0C8").unwrap();
        assert_eq!(lower, upper);
    }

    #[test]
    fn rejects_other_forms() {
        for raw in [
            "",
            "not-a-uuid",
            "67e5504410b1426f9247bb680e5fe0c8",
            "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
            "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67e55044-10b1-426f-9247-bb680e5fe0cz",
            " 67e55044-10b1-426f-9247-bb680e5fe0c",
        ] {
            let err = parse_uuid("account_uuid", raw).unwrap_err();
            assert_eq!(err.property, "account_uuid", "{raw}");
            assert_eq!(err.code, crate::validation::codes::NOT_VALID);
        }
    }
}
