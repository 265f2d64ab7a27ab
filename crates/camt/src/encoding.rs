//! Turns the uploaded bytes into the UTF-8 text roxmltree reads.
//!
//! Banks send UTF-8, with or without a byte order mark, and some older systems send
//! ISO-8859-1 and say so in the XML declaration. Anything else is refused by name rather
//! than guessed at: a wrongly decoded name or reference would not match in reconciliation,
//! and nobody would notice.

use std::borrow::Cow;

use crate::error::CamtError;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The declaration, if any, sits in the first few dozen bytes; this bounds the search for a
/// file that starts with `<?xml` and never closes it.
const DECLARATION_WINDOW: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Latin1,
}

/// Finds the encoding and returns the bytes after any byte order mark.
pub(crate) fn detect(bytes: &[u8]) -> Result<(Encoding, &[u8]), CamtError> {
    if bytes.starts_with(b"\xFE\xFF") || bytes.starts_with(b"\xFF\xFE") {
        return Err(CamtError::Encoding(
            "the file is UTF-16; please export it as UTF-8".into(),
        ));
    }
    if bytes.starts_with(b"\0<") || bytes.starts_with(b"<\0") {
        return Err(CamtError::Encoding(
            "the file looks like UTF-16 or UTF-32; please export it as UTF-8".into(),
        ));
    }
    let (has_bom, body) = match bytes.strip_prefix(UTF8_BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let encoding = match declared_encoding(body) {
        None => Encoding::Utf8,
        Some(name) => match classify(name) {
            Some(Encoding::Latin1) if has_bom => {
                return Err(CamtError::Encoding(
                    "the file starts with a UTF-8 byte order mark but declares ISO-8859-1".into(),
                ));
            }
            Some(encoding) => encoding,
            None => {
                return Err(CamtError::Encoding(format!(
                    "the file declares the encoding {:?}; only UTF-8 and ISO-8859-1 are accepted",
                    String::from_utf8_lossy(name)
                )));
            }
        },
    };
    Ok((encoding, body))
}

/// Decodes the body returned by [`detect`]. UTF-8 is borrowed; only Latin-1 is copied.
pub(crate) fn decode(body: &[u8], encoding: Encoding) -> Result<Cow<'_, str>, CamtError> {
    match encoding {
        Encoding::Utf8 => std::str::from_utf8(body).map(Cow::Borrowed).map_err(|err| {
            CamtError::Encoding(format!(
                "the file is not valid UTF-8 (first bad byte at offset {}); \
                 if it is ISO-8859-1 its XML declaration must say so",
                err.valid_up_to()
            ))
        }),
        Encoding::Latin1 => Ok(latin1_to_utf8(body)),
    }
}

/// Every ISO-8859-1 byte is the Unicode code point of the same number.
fn latin1_to_utf8(body: &[u8]) -> Cow<'_, str> {
    // Pure ASCII reads the same either way and needs no copy.
    if body.is_ascii()
        && let Ok(text) = std::str::from_utf8(body)
    {
        return Cow::Borrowed(text);
    }
    Cow::Owned(body.iter().map(|&b| char::from(b)).collect())
}

/// The value of `encoding="…"` in the XML declaration, if the file has one.
fn declared_encoding(body: &[u8]) -> Option<&[u8]> {
    let rest = body.strip_prefix(b"<?xml")?;
    let window = &rest[..rest.len().min(DECLARATION_WINDOW)];
    let end = memchr::memmem::find(window, b"?>")?;
    let declaration = &window[..end];
    let at = memchr::memmem::find(declaration, b"encoding")?;
    let after = trim_start(&declaration[at + "encoding".len()..]);
    let after = trim_start(after.strip_prefix(b"=")?);
    let quote = *after.first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let value = &after[1..];
    let close = memchr::memchr(quote, value)?;
    Some(&value[..close])
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .count();
    &bytes[skip..]
}

/// The names XML processors and banks use for the two accepted encodings. US-ASCII is a
/// subset of UTF-8, so it is read as UTF-8 (and still refused if a byte is not UTF-8).
fn classify(name: &[u8]) -> Option<Encoding> {
    const UTF8: &[&str] = &["utf-8", "utf8", "us-ascii", "ascii"];
    const LATIN1: &[&str] = &[
        "iso-8859-1",
        "iso8859-1",
        "iso_8859-1",
        "iso-8859-1:1987",
        "latin1",
        "latin-1",
        "l1",
    ];
    let is = |names: &[&str]| {
        names
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
    };
    if is(UTF8) {
        Some(Encoding::Utf8)
    } else if is(LATIN1) {
        Some(Encoding::Latin1)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn read(bytes: &[u8]) -> Result<String, CamtError> {
        let (encoding, body) = detect(bytes)?;
        decode(body, encoding).map(Cow::into_owned)
    }

    #[test]
    fn utf8_without_declaration_is_borrowed() {
        let (encoding, body) = detect("<a>Zürich</a>".as_bytes()).unwrap();
        assert_eq!(encoding, Encoding::Utf8);
        assert!(matches!(decode(body, encoding).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn utf8_bom_is_stripped() {
        let text = read(b"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>").unwrap();
        assert!(text.starts_with("<?xml"));
    }

    #[test]
    fn latin1_is_converted() {
        let text =
            read(b"<?xml version='1.0' encoding='ISO-8859-1'?><Nm>Z\xFCrich \xA3</Nm>").unwrap();
        assert!(text.ends_with("<Nm>Zürich £</Nm>"), "{text}");
    }

    #[test]
    fn encoding_names_are_matched_without_case_and_with_spaces() {
        let text = read(b"<?xml version=\"1.0\"  encoding = \"latin1\" ?><a>\xE9</a>").unwrap();
        assert!(text.ends_with("<a>é</a>"));
        assert!(read(b"<?xml version=\"1.0\" encoding=\"utf8\"?><a/>").is_ok());
    }

    #[test]
    fn other_encodings_are_refused_by_name() {
        let err = read(b"<?xml version=\"1.0\" encoding=\"windows-1252\"?><a/>").unwrap_err();
        assert!(
            matches!(&err, CamtError::Encoding(m) if m.contains("windows-1252")),
            "{err}"
        );
        let err = read(b"<?xml version=\"1.0\" encoding=\"EBCDIC-US\"?><a/>").unwrap_err();
        assert!(matches!(err, CamtError::Encoding(_)));
    }

    #[test]
    fn utf16_is_refused() {
        assert!(matches!(
            read(b"\xFF\xFE<\0a\0"),
            Err(CamtError::Encoding(_))
        ));
        assert!(matches!(read(b"<\0a\0/\0>\0"), Err(CamtError::Encoding(_))));
    }

    #[test]
    fn latin1_bytes_without_declaration_are_not_utf8() {
        let err = read(b"<a>Z\xFCrich</a>").unwrap_err();
        assert!(
            matches!(&err, CamtError::Encoding(m) if m.contains("offset 4")),
            "{err}"
        );
    }

    #[test]
    fn bom_contradicting_latin1_declaration_is_refused() {
        let err = read(b"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>");
        assert!(matches!(err, Err(CamtError::Encoding(_))));
    }

    #[test]
    fn unterminated_declaration_is_left_to_the_xml_parser() {
        // No encoding can be read, so UTF-8 is assumed and roxmltree reports the syntax.
        let (encoding, _) = detect(b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"").unwrap();
        assert_eq!(encoding, Encoding::Utf8);
    }
}
