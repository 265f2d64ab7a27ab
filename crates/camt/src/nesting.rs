//! A pass over the raw bytes that refuses a DTD and bounds element nesting before roxmltree
//! builds anything.
//!
//! roxmltree has a node limit but no depth limit, and the code that walks its tree should
//! never meet a document a hundred thousand levels deep. Counting start and end tags is cheap
//! (one `memchr` per tag) and needs no tree, so the check runs first. It does not validate:
//! whatever it cannot make sense of is left for roxmltree to report with a position.
//!
//! The bytes may be UTF-8 or ISO-8859-1: both spell markup with the same ASCII bytes.

use memchr::{memchr, memchr3, memmem};

use crate::error::CamtError;

pub(crate) fn check(bytes: &[u8], max_depth: u32) -> Result<(), CamtError> {
    let mut depth: u32 = 0;
    let mut pos = 0;
    while let Some(offset) = memchr(b'<', &bytes[pos..]) {
        let start = pos + offset;
        let rest = &bytes[start + 1..];
        pos = match rest.first() {
            // An end tag holds no `<`, so the next search may start right after it.
            Some(b'/') => {
                depth = depth.saturating_sub(1);
                start + 2
            }
            Some(b'?') => match skip_past(bytes, start + 2, b"?>") {
                Some(next) => next,
                None => return Ok(()),
            },
            Some(b'!') if rest.starts_with(b"!--") => match skip_past(bytes, start + 4, b"-->") {
                Some(next) => next,
                None => return Ok(()),
            },
            Some(b'!') if rest.starts_with(b"![CDATA[") => {
                match skip_past(bytes, start + 9, b"]]>") {
                    Some(next) => next,
                    None => return Ok(()),
                }
            }
            Some(b'!') if rest.starts_with(b"!DOCTYPE") => return Err(CamtError::Dtd),
            // Not a name after `<`: not markup this pass understands, and not well-formed;
            // roxmltree says where.
            Some(c) if !(c.is_ascii_alphabetic() || matches!(c, b'_' | b':') || *c >= 0x80) => {
                return Ok(());
            }
            Some(_) => {
                let Some((end, self_closing)) = start_tag_end(bytes, start + 1) else {
                    return Ok(());
                };
                if !self_closing {
                    depth += 1;
                    if depth > max_depth {
                        return Err(CamtError::TooDeep { limit: max_depth });
                    }
                }
                end + 1
            }
            None => return Ok(()),
        };
    }
    Ok(())
}

/// The position just after `needle`, searching from `from`.
fn skip_past(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let haystack = bytes.get(from..)?;
    memmem::find(haystack, needle).map(|at| from + at + needle.len())
}

/// Where the start tag opened before `from` closes, and whether it closes with `/>`.
/// Attribute values may hold `>`, so quoted text is stepped over.
fn start_tag_end(bytes: &[u8], mut from: usize) -> Option<(usize, bool)> {
    loop {
        let at = from + memchr3(b'>', b'"', b'\'', bytes.get(from..)?)?;
        match bytes[at] {
            b'>' => return Some((at, at > 0 && bytes[at - 1] == b'/')),
            quote => from = at + 1 + memchr(quote, bytes.get(at + 1..)?)? + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn counts_only_open_elements() {
        let xml = b"<?xml version='1.0'?><a><b/><c x='>' y=\"/>\"><!-- <d><e> --><![CDATA[<f><g>]]></c></a>";
        assert!(check(xml, 2).is_ok());
        assert_eq!(check(xml, 1), Err(CamtError::TooDeep { limit: 1 }));
    }

    #[test]
    fn siblings_do_not_add_up() {
        let xml = b"<a><b></b><b></b><b><c/></b></a>".repeat(1000);
        assert!(check(&xml, 2).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let xml = b"<a>".repeat(1_000_000);
        assert_eq!(check(&xml, 64), Err(CamtError::TooDeep { limit: 64 }));
    }

    #[test]
    fn doctype_is_refused() {
        let xml = b"<?xml version='1.0'?>\n<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>";
        assert_eq!(check(xml, 64), Err(CamtError::Dtd));
    }

    #[test]
    fn unterminated_markup_is_left_to_the_parser() {
        for xml in [
            &b"<a"[..],
            b"<a x='>",
            b"<!-- <a>",
            b"<![CDATA[",
            b"<?pi",
            b"<",
        ] {
            assert!(check(xml, 1).is_ok(), "{}", String::from_utf8_lossy(xml));
        }
    }
}
