//! Which camt message and version a namespace names.
//!
//! ISO's namespaces read `urn:iso:std:iso:20022:tech:xsd:camt.053.001.04`; Swiss banks
//! following the SPS rules use their own, such as
//! `http://www.six-interbank-clearing.com/de/camt.053.001.04.xsd`. Both carry the message
//! identifier, so that is what is looked for.

use crate::document::MessageType;

/// Oldest and newest `camt.05x.001.NN` variants read. Their shapes differ only where the
/// readers accept both forms (see `read_entry` and `read_transaction`).
const SUPPORTED: std::ops::RangeInclusive<u8> = 2..=10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Named {
    Supported(MessageType, String),
    /// The namespace names a camt message, but another one or another version.
    Other(String),
    /// Nothing camt-like in the namespace.
    Unknown,
}

pub(crate) fn from_namespace(namespace: &str) -> Named {
    let Some(at) = namespace.find("camt.") else {
        return Named::Unknown;
    };
    let tail = &namespace[at..];
    // `camt.053.001.04` is 15 bytes; a longer number is another identifier altogether.
    let id = tail.get(..15).unwrap_or(tail);
    let bytes = id.as_bytes();
    let shaped = bytes.len() == 15
        && bytes[4] == b'.'
        && bytes[8..13] == *b".001."
        && bytes[5..8].iter().all(u8::is_ascii_digit)
        && bytes[13..15].iter().all(u8::is_ascii_digit)
        && !tail.as_bytes().get(15).is_some_and(u8::is_ascii_digit);
    if !shaped {
        return Named::Other(tail.to_owned());
    }
    let message_type = match &id[5..8] {
        "053" => MessageType::Camt053,
        "054" => MessageType::Camt054,
        _ => return Named::Other(id.to_owned()),
    };
    let variant = (bytes[13] - b'0') * 10 + (bytes[14] - b'0');
    if SUPPORTED.contains(&variant) {
        Named::Supported(message_type, id.to_owned())
    } else {
        Named::Other(id.to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn supported(namespace: &str) -> Option<(MessageType, String)> {
        match from_namespace(namespace) {
            Named::Supported(kind, version) => Some((kind, version)),
            _ => None,
        }
    }

    #[test]
    fn reads_iso_namespaces() {
        for n in 2..=10 {
            let ns = format!("urn:iso:std:iso:20022:tech:xsd:camt.053.001.{n:02}");
            let expected = format!("camt.053.001.{n:02}");
            assert_eq!(supported(&ns), Some((MessageType::Camt053, expected)));
        }
        assert_eq!(
            supported("urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"),
            Some((MessageType::Camt054, "camt.054.001.08".into()))
        );
    }

    #[test]
    fn reads_swiss_namespaces() {
        assert_eq!(
            supported("http://www.six-interbank-clearing.com/de/camt.053.001.04.xsd"),
            Some((MessageType::Camt053, "camt.053.001.04".into()))
        );
        assert_eq!(
            supported("http://www.six-interbank-clearing.com/de/camt.054.001.02.xsd"),
            Some((MessageType::Camt054, "camt.054.001.02".into()))
        );
    }

    #[test]
    fn names_what_it_does_not_read() {
        let other = |ns: &str| from_namespace(ns);
        assert_eq!(
            other("urn:iso:std:iso:20022:tech:xsd:camt.053.001.01"),
            Named::Other("camt.053.001.01".into())
        );
        assert_eq!(
            other("urn:iso:std:iso:20022:tech:xsd:camt.053.001.11"),
            Named::Other("camt.053.001.11".into())
        );
        assert_eq!(
            other("urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"),
            Named::Other("camt.052.001.08".into())
        );
        assert_eq!(
            other("urn:iso:std:iso:20022:tech:xsd:camt.053.001.100"),
            Named::Other("camt.053.001.100".into())
        );
        assert_eq!(
            other("urn:example:camt.053"),
            Named::Other("camt.053".into())
        );
        assert_eq!(
            other("urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"),
            Named::Unknown
        );
        assert_eq!(other(""), Named::Unknown);
    }
}
