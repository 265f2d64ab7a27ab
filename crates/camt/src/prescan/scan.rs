//! The pass itself: walks the text from one `<` to the next, counts nodes, attributes,
//! namespaces and depth as it goes, and refuses the file as soon as one goes past its
//! limit, before any tree is built.

use memchr::memchr;

use super::markup::{StartTag, line_at, skip_past, start_tag};
use super::outline::Outline;
use super::parts::{Part, Parts};
use crate::error::CamtError;
use crate::limits::Limits;

/// An open element: how many namespaces it declares, and the part it opened, if any.
#[derive(Debug, Clone, Copy)]
struct Open {
    declares: u32,
    opens: Option<Part>,
}

/// The scan's state between tags.
struct Scan<'a> {
    bytes: &'a [u8],
    limits: &'a Limits,
    stack: Vec<Open>,
    in_scope: u64,
    attributes: u64,
    nodes: u64,
    /// The entries and transactions found so far, and the tally of the part being read.
    parts: Parts<'a>,
}

pub(crate) fn scan(bytes: &[u8], limits: &Limits) -> Result<Outline, CamtError> {
    let mut scan = Scan {
        bytes,
        limits,
        stack: Vec::new(),
        in_scope: 0,
        attributes: 0,
        nodes: 1,
        parts: Parts::new(bytes),
    };
    scan.markup()?;
    Ok(scan.parts.finish())
}

impl Scan<'_> {
    fn markup(&mut self) -> Result<(), CamtError> {
        let bytes = self.bytes;
        let mut pos = 0;
        while let Some(offset) = memchr(b'<', &bytes[pos..]) {
            let start = pos + offset;
            if offset > 0 {
                self.text(&bytes[pos..start])?;
            }
            self.parts.current.markup += 1;
            let rest = &bytes[start + 1..];
            pos = match rest.first() {
                Some(b'/') => match memchr(b'>', &bytes[start..]) {
                    Some(end) => self.close(start + end + 1),
                    None => return Ok(()),
                },
                Some(b'?') => match skip_past(bytes, start + 2, b"?>") {
                    Some(next) => self.other(next)?,
                    None => return Ok(()),
                },
                Some(b'!') if rest.starts_with(b"!--") => {
                    match skip_past(bytes, start + 4, b"-->") {
                        Some(next) => self.other(next)?,
                        None => return Ok(()),
                    }
                }
                Some(b'!') if rest.starts_with(b"![CDATA[") => {
                    match skip_past(bytes, start + 9, b"]]>") {
                        Some(next) => self.other(next)?,
                        None => return Ok(()),
                    }
                }
                Some(b'!') if rest.starts_with(b"!DOCTYPE") => return Err(CamtError::Dtd),
                // Not a name after `<`: not markup this pass understands, and not
                // well-formed; roxmltree says where.
                Some(c) if !(c.is_ascii_alphabetic() || matches!(c, b'_' | b':') || *c >= 0x80) => {
                    return Ok(());
                }
                Some(_) => match start_tag(bytes, start) {
                    Some(tag) => self.open(start, &tag)?,
                    None => return Ok(()),
                },
                None => return Ok(()),
            };
        }
        Ok(())
    }

    fn text(&mut self, run: &[u8]) -> Result<(), CamtError> {
        self.count_node()?;
        if !run.iter().all(u8::is_ascii_whitespace) {
            self.parts.current.texts += 1;
        }
        Ok(())
    }

    /// A comment, a processing instruction or a CDATA section: one node.
    fn other(&mut self, next: usize) -> Result<usize, CamtError> {
        self.count_node()?;
        Ok(next)
    }

    fn count_node(&mut self) -> Result<(), CamtError> {
        self.parts.current.nodes += 1;
        self.nodes += 1;
        if self.nodes > u64::from(self.limits.max_nodes) {
            return Err(CamtError::TooManyNodes {
                limit: self.limits.max_nodes,
            });
        }
        Ok(())
    }

    fn open(&mut self, start: usize, tag: &StartTag<'_>) -> Result<usize, CamtError> {
        let limits = self.limits;
        if tag.attributes > limits.max_attributes_per_element {
            return Err(CamtError::TooManyAttributes {
                limit: limits.max_attributes_per_element,
                line: line_at(self.bytes, start),
            });
        }
        self.attributes += u64::from(tag.attributes);
        if self.attributes > u64::from(limits.max_attributes) {
            return Err(CamtError::TooManyAttributesInFile {
                limit: limits.max_attributes,
            });
        }
        let opens = match (tag.local_name, self.parts.part) {
            (b"Ntry", Part::Skeleton) => Some(Part::Entry),
            (b"TxDtls", Part::Entry) => Some(Part::Transaction),
            _ => None,
        };
        if let Some(part) = opens {
            self.parts.enter(part, start);
        }
        self.count_node()?;
        if tag.declares > 0 {
            let in_scope = self.in_scope + u64::from(tag.declares);
            if in_scope > u64::from(limits.max_namespaces_in_scope) {
                return Err(CamtError::TooManyNamespaces {
                    limit: limits.max_namespaces_in_scope,
                    line: line_at(self.bytes, start),
                });
            }
            self.parts.outline.counts.namespace_refs += in_scope;
        }
        if tag.self_closing {
            if opens.is_some() {
                self.parts.leave(tag.end);
            }
        } else {
            if self.stack.len() >= limits.max_depth as usize {
                return Err(CamtError::TooDeep {
                    limit: limits.max_depth,
                });
            }
            self.in_scope += u64::from(tag.declares);
            self.stack.push(Open {
                declares: tag.declares,
                opens,
            });
        }
        Ok(tag.end)
    }

    /// An end tag ending at `end`; an end tag without its start is left to roxmltree.
    fn close(&mut self, end: usize) -> usize {
        if let Some(open) = self.stack.pop() {
            self.in_scope -= u64::from(open.declares);
            if open.opens.is_some() {
                self.parts.leave(end);
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::ops::Range;

    use super::*;

    fn check(xml: &[u8], limits: &Limits) -> Result<Outline, CamtError> {
        scan(xml, limits)
    }

    fn depth(max_depth: u32) -> Limits {
        Limits {
            max_depth,
            ..Limits::default()
        }
    }

    #[test]
    fn counts_only_open_elements() {
        let xml = b"<?xml version='1.0'?><a><b/><c x='>' y=\"/>\"><!-- <d><e> --><![CDATA[<f><g>]]></c></a>";
        assert!(check(xml, &depth(2)).is_ok());
        assert_eq!(
            check(xml, &depth(1)).unwrap_err(),
            CamtError::TooDeep { limit: 1 }
        );
    }

    #[test]
    fn siblings_do_not_add_up() {
        let xml = b"<a><b></b><b></b><b><c/></b></a>".repeat(1000);
        assert!(check(&xml, &depth(2)).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let xml = b"<a>".repeat(1_000_000);
        assert_eq!(
            check(&xml, &depth(64)).unwrap_err(),
            CamtError::TooDeep { limit: 64 }
        );
    }

    #[test]
    fn doctype_is_refused() {
        let xml = b"<?xml version='1.0'?>\n<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>";
        assert_eq!(check(xml, &depth(64)).unwrap_err(), CamtError::Dtd);
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
            assert!(
                check(xml, &depth(1)).is_ok(),
                "{}",
                String::from_utf8_lossy(xml)
            );
        }
    }

    #[test]
    fn attributes_are_counted_per_element_and_per_file() {
        let limits = Limits {
            max_attributes_per_element: 3,
            max_attributes: 5,
            ..Limits::default()
        };
        assert!(check(b"<a x='1' y=\"2\" z='3'><b v='>'/></a>", &limits).is_ok());
        assert_eq!(
            check(b"<a>\n\n<b x='1' y='2' z='3' w='4'/></a>", &limits).unwrap_err(),
            CamtError::TooManyAttributes { limit: 3, line: 3 }
        );
        assert_eq!(
            check(
                b"<a x='1' y='2'><b x='1' y='2'/><c x='1' y='2'/></a>",
                &limits
            )
            .unwrap_err(),
            CamtError::TooManyAttributesInFile { limit: 5 }
        );
    }

    #[test]
    fn namespaces_in_scope_are_bounded() {
        let limits = Limits {
            max_namespaces_in_scope: 3,
            ..Limits::default()
        };
        let ok = b"<a xmlns='u' xmlns:p='v'><b xmlns:q = 'w'/><c xmlns:r='x'/></a>";
        let outline = check(ok, &limits).unwrap();
        assert_eq!(outline.counts.namespace_refs, 2 + 3 + 3);
        assert_eq!(
            check(
                b"<a xmlns='u' xmlns:p='v'><b xmlns:q='w'><c xmlns:r='x'/></b></a>",
                &limits
            )
            .unwrap_err(),
            CamtError::TooManyNamespaces { limit: 3, line: 1 }
        );
        // A value that reads `xmlns=` is no declaration, nor is an attribute named so.
        let outline = check(b"<a t='xmlns=' xmlnsx='1'/>", &limits).unwrap();
        assert_eq!(outline.counts.namespace_refs, 0);
    }

    #[test]
    fn nodes_are_refused_before_a_tree_is_built() {
        let limits = Limits {
            max_nodes: 10,
            ..Limits::default()
        };
        assert!(check(b"<a><b>x</b><c/></a>", &limits).is_ok());
        assert_eq!(
            check(&b"<a>".repeat(6), &limits).map(|_| ()),
            Ok(()),
            "six elements are seven nodes"
        );
        assert_eq!(
            check(
                &[&b"<a>"[..], &b"<b/>x".repeat(5), b"</a>"].concat(),
                &limits
            )
            .unwrap_err(),
            CamtError::TooManyNodes { limit: 10 }
        );
    }

    #[test]
    fn entries_and_their_transactions_are_found() {
        let xml = b"<D><S><Id>1</Id><Ntry><A/><NtryDtls><TxDtls>a</TxDtls><TxDtls/></NtryDtls></Ntry>\n<p:Ntry x='1'/><Ntry><TxDtls><TxDtls/></TxDtls></Ntry></S></D>";
        let outline = scan(xml, &Limits::default()).unwrap();
        let text = |r: &Range<usize>| std::str::from_utf8(&xml[r.clone()]).unwrap();
        let entries: Vec<_> = outline.entries.iter().map(|e| text(&e.range)).collect();
        assert_eq!(
            entries,
            [
                "<Ntry><A/><NtryDtls><TxDtls>a</TxDtls><TxDtls/></NtryDtls></Ntry>",
                "<p:Ntry x='1'/>",
                "<Ntry><TxDtls><TxDtls/></TxDtls></Ntry>"
            ]
        );
        let transactions: Vec<_> = outline.transactions.iter().map(text).collect();
        assert_eq!(
            transactions,
            [
                "<TxDtls>a</TxDtls>",
                "<TxDtls/>",
                "<TxDtls><TxDtls/></TxDtls>"
            ]
        );
        let named: Vec<_> = outline
            .entries
            .iter()
            .map(|e| e.transactions.clone())
            .collect();
        assert_eq!(named, [0..2, 2..2, 2..3]);
        let counts = outline.counts;
        assert_eq!((counts.entries, counts.transactions), (3, 3));
        assert_eq!(
            counts.skeleton.bytes + counts.inside_entries.bytes,
            xml.len() as u64
        );
        assert_eq!(counts.largest_transaction.bytes, 26);
    }
}
