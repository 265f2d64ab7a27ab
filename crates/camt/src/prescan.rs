//! One pass over the text before any tree is built. It refuses a DTD, nesting deeper than
//! allowed, too many attributes on one element or in the file, too many namespaces in
//! scope and too many nodes; it counts what the trees will hold (for the estimate in
//! memory.rs) and finds where each entry (`Ntry`) and each of its transactions (`TxDtls`)
//! starts and ends, so that chunks.rs can parse them one at a time.
//!
//! roxmltree checks each attribute of an element against every one before it, and each
//! namespace declaration likewise, and bounds neither: one element with 100,000
//! attributes costs five billion comparisons. Counting quoted values here needs no tree,
//! one `memchr` per tag. The pass does not validate: whatever it cannot make sense of is
//! left for roxmltree to report with a position.
//!
//! The text is UTF-8 (ISO-8859-1 is decoded before), so markup is plain ASCII bytes.

use std::ops::Range;

use memchr::{memchr, memchr3, memmem};

use crate::error::CamtError;
use crate::limits::Limits;
use crate::memory;

/// Where the entries and their transactions are, and what each tree will hold.
#[derive(Debug, Default)]
pub(crate) struct Outline {
    /// The outermost `Ntry` elements, in file order, each naming its transactions.
    pub entries: Vec<Cut>,
    /// The outermost `TxDtls` elements inside entries, in file order.
    pub transactions: Vec<Range<usize>>,
    pub counts: Counts,
}

/// One entry: its bytes, and which of [`Outline::transactions`] lie inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cut {
    pub range: Range<usize>,
    pub transactions: Range<usize>,
}

/// What a part of the file holds, as roxmltree will see it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub bytes: u64,
    /// `<` characters: roxmltree sizes its node table by them.
    pub markup: u64,
    /// Elements, text runs, comments and processing instructions.
    pub nodes: u64,
    /// `=` characters: roxmltree sizes its attribute table by them.
    pub equals: u64,
    /// Text runs that are not only blanks: at most this many strings are kept from them.
    pub texts: u64,
}

/// The tallies of the trees that are held at once: the file without its entries, the
/// largest entry without its transactions and the largest transaction, and of everything
/// inside entries (what the statements read from them keep).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub skeleton: Tally,
    pub largest_entry: Tally,
    pub largest_transaction: Tally,
    pub inside_entries: Tally,
    pub entries: u64,
    pub transactions: u64,
    /// Namespaces copied into scope by elements that declare some (roxmltree keeps a list
    /// of those in scope for each such element).
    pub namespace_refs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Skeleton,
    Entry,
    Transaction,
}

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
    outline: Outline,
    stack: Vec<Open>,
    in_scope: u64,
    attributes: u64,
    nodes: u64,
    /// The tally of the part being read, the entry's kept while one of its transactions is.
    current: Tally,
    entry_tally: Tally,
    entry_start: usize,
    transaction_start: usize,
    part: Part,
}

pub(crate) fn scan(bytes: &[u8], limits: &Limits) -> Result<Outline, CamtError> {
    let mut scan = Scan {
        bytes,
        limits,
        outline: Outline::default(),
        stack: Vec::new(),
        in_scope: 0,
        attributes: 0,
        nodes: 1,
        current: Tally::default(),
        entry_tally: Tally::default(),
        entry_start: 0,
        transaction_start: 0,
        part: Part::Skeleton,
    };
    scan.markup()?;
    Ok(scan.finish())
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
            self.current.markup += 1;
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
            self.current.texts += 1;
        }
        Ok(())
    }

    /// A comment, a processing instruction or a CDATA section: one node.
    fn other(&mut self, next: usize) -> Result<usize, CamtError> {
        self.count_node()?;
        Ok(next)
    }

    fn count_node(&mut self) -> Result<(), CamtError> {
        self.current.nodes += 1;
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
        let opens = match (tag.local_name, self.part) {
            (b"Ntry", Part::Skeleton) => Some(Part::Entry),
            (b"TxDtls", Part::Entry) => Some(Part::Transaction),
            _ => None,
        };
        if let Some(part) = opens {
            self.enter(part, start);
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
            self.outline.counts.namespace_refs += in_scope;
        }
        if tag.self_closing {
            if opens.is_some() {
                self.leave(tag.end);
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
                self.leave(end);
            }
        }
        end
    }

    /// Starts counting a new part at the `<` at `start`.
    fn enter(&mut self, part: Part, start: usize) {
        match part {
            Part::Entry => {
                self.outline.counts.skeleton = add(self.outline.counts.skeleton, self.current);
                self.entry_start = start;
            }
            Part::Transaction => {
                self.entry_tally = self.current;
                self.transaction_start = start;
            }
            Part::Skeleton => {}
        }
        self.current = Tally::default();
        self.part = part;
    }

    /// Ends the part being counted at `end` (just past its end tag).
    fn leave(&mut self, end: usize) {
        let counts = &mut self.outline.counts;
        match self.part {
            Part::Transaction => {
                let range = self.transaction_start..end;
                let tally = finished(self.current, &self.bytes[range.clone()]);
                counts.largest_transaction = larger(counts.largest_transaction, tally);
                counts.inside_entries = add(counts.inside_entries, tally);
                counts.transactions += 1;
                self.outline.transactions.push(range);
                // The entry goes on counting, with a placeholder where the transaction was.
                self.current = self.entry_tally;
                self.current.nodes += 1;
                self.part = Part::Entry;
            }
            Part::Entry => {
                let range = self.entry_start..end;
                let first = self
                    .outline
                    .entries
                    .last()
                    .map_or(0, |e| e.transactions.end);
                let nested = &self.outline.transactions[first..];
                let mut tally = finished(self.current, &self.bytes[range.clone()]);
                for inner in nested {
                    let len = inner.len() as u64;
                    tally.bytes -= len;
                    tally.equals -= count_equals(&self.bytes[inner.clone()]);
                }
                counts.largest_entry = larger(counts.largest_entry, tally);
                counts.inside_entries = add(counts.inside_entries, tally);
                counts.entries += 1;
                let transactions = first..self.outline.transactions.len();
                self.outline.entries.push(Cut {
                    range,
                    transactions,
                });
                self.current = Tally {
                    nodes: 1,
                    ..Tally::default()
                };
                self.part = Part::Skeleton;
            }
            Part::Skeleton => {}
        }
    }

    fn finish(mut self) -> Outline {
        // A file that ends inside an entry is not well-formed; roxmltree says so when it
        // reads the skeleton, which then holds the rest of the file.
        let current = match self.part {
            Part::Skeleton => self.current,
            Part::Entry => add(self.current, self.outline.counts.skeleton),
            Part::Transaction => add(self.current, self.entry_tally),
        };
        let counts = &mut self.outline.counts;
        counts.skeleton = add(counts.skeleton, current);
        let in_entries: u64 = self
            .outline
            .entries
            .iter()
            .map(|e| e.range.len() as u64)
            .sum();
        counts.skeleton.bytes = self.bytes.len() as u64 - in_entries;
        counts.skeleton.equals = count_equals(self.bytes)
            - self
                .outline
                .entries
                .iter()
                .map(|e| count_equals(&self.bytes[e.range.clone()]))
                .sum::<u64>();
        self.outline
    }
}

/// A part's tally once its bytes are known.
fn finished(tally: Tally, bytes: &[u8]) -> Tally {
    Tally {
        bytes: bytes.len() as u64,
        equals: count_equals(bytes),
        ..tally
    }
}

fn count_equals(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'=', bytes).count() as u64
}

fn add(a: Tally, b: Tally) -> Tally {
    Tally {
        bytes: a.bytes + b.bytes,
        markup: a.markup + b.markup,
        nodes: a.nodes + b.nodes,
        equals: a.equals + b.equals,
        texts: a.texts + b.texts,
    }
}

/// The tally of the larger tree of the two, by what roxmltree allocates for it.
fn larger(a: Tally, b: Tally) -> Tally {
    if memory::tree(b) > memory::tree(a) {
        b
    } else {
        a
    }
}

/// The line (from 1) the byte at `at` is on, for a refusal's message.
pub(crate) fn line_at(bytes: &[u8], at: usize) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', &bytes[..at.min(bytes.len())]).count();
    u32::try_from(newlines + 1).unwrap_or(u32::MAX)
}

/// The position just after `needle`, searching from `from`.
fn skip_past(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let haystack = bytes.get(from..)?;
    memmem::find(haystack, needle).map(|at| from + at + needle.len())
}

/// A start tag as the scan needs it.
#[derive(Debug, PartialEq, Eq)]
struct StartTag<'a> {
    /// Its name without a prefix.
    local_name: &'a [u8],
    /// Quoted values: one per attribute, namespace declarations included.
    attributes: u32,
    /// `xmlns` and `xmlns:…` attributes.
    declares: u32,
    self_closing: bool,
    /// Just past its `>`.
    end: usize,
}

/// The start tag whose `<` is at `start`. Attribute values may hold `>`, so quoted text is
/// stepped over; `None` when the tag never closes.
fn start_tag(bytes: &[u8], start: usize) -> Option<StartTag<'_>> {
    let name_end = bytes[start + 1..]
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .map_or(bytes.len(), |n| start + 1 + n);
    let name = &bytes[start + 1..name_end];
    let local_name = match memchr::memrchr(b':', name) {
        Some(colon) => &name[colon + 1..],
        None => name,
    };
    let (mut attributes, mut declares) = (0u32, 0u32);
    let mut from = name_end;
    loop {
        let at = from + memchr3(b'>', b'"', b'\'', bytes.get(from..)?)?;
        match bytes[at] {
            b'>' => {
                return Some(StartTag {
                    local_name,
                    attributes,
                    declares,
                    self_closing: at > 0 && bytes[at - 1] == b'/',
                    end: at + 1,
                });
            }
            quote => {
                attributes = attributes.saturating_add(1);
                if declares_namespace(&bytes[name_end..at]) {
                    declares += 1;
                }
                from = at + 1 + memchr(quote, bytes.get(at + 1..)?)? + 1;
            }
        }
    }
}

/// Whether the attribute whose `="` ends `before` is `xmlns` or `xmlns:…`.
fn declares_namespace(before: &[u8]) -> bool {
    let trimmed = trim_end(before);
    let Some(name) = trimmed.strip_suffix(b"=") else {
        return false;
    };
    let name = trim_end(name);
    // A name holds no blank and no quote: stopping at either keeps each attribute's look
    // back to its own name, however many share the tag.
    let start = name
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\''))
        .map_or(0, |at| at + 1);
    let name = &name[start..];
    name == b"xmlns" || name.starts_with(b"xmlns:")
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let kept = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    &bytes[..kept]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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
        let outline = check(xml, &Limits::default()).unwrap();
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
