//! Reading a file a part at a time. One roxmltree tree of a whole statement takes about
//! six times the file; so the file without its entries (the skeleton) is parsed first,
//! each entry (`Ntry`, without its transactions) when the statement reaches it, and each
//! transaction (`TxDtls`) when its entry does. Each tree is dropped once read, so a file
//! costs its text, the statements read from it and the few trees held at once.
//!
//! Where an entry or transaction was, its parent's text holds a placeholder naming it
//! (`<Ntry chunk="7"/>`) followed by the line breaks it held, so lines keep their numbers.
//! A part is parsed inside an element that declares the namespaces in scope where it
//! stood, with its errors' lines moved to where it stands in the file. Parts the reading
//! never reaches are parsed all the same, so a file is refused whole when any part of it
//! is not well-formed, as one parse of the whole file would refuse it.

use std::ops::Range;

use roxmltree::{Node, ParsingOptions};

use crate::deadline::{self, Deadline};
use crate::document::{Entry, Transaction};
use crate::error::CamtError;
use crate::limits::Limits;
use crate::prescan::{Outline, line_at};
use crate::read_entry::{check_entry, read_entry};
use crate::read_transaction::read_transaction;

/// The attribute that names the part a placeholder stands for.
const CHUNK: &str = "chunk";
/// The element a part is parsed inside, declaring the namespaces in scope around it.
const WRAPPER: &str = "w";

pub(crate) struct Chunks<'a> {
    text: &'a str,
    outline: &'a Outline,
    nodes_limit: u32,
    deadline: Option<&'a Deadline>,
    entries_read: Vec<bool>,
    transactions_read: Vec<bool>,
}

/// The text with each entry replaced by its placeholder.
pub(crate) fn skeleton(text: &str, outline: &Outline) -> String {
    let cuts: Vec<Range<usize>> = outline.entries.iter().map(|e| e.range.clone()).collect();
    with_placeholders(text, 0..text.len(), &cuts, "Ntry", 0)
}

/// `within` of `text`, with each of `cuts` (inside it, in order) replaced by a placeholder
/// `<{name} chunk="{first + i}"/>` and the line breaks it held.
fn with_placeholders(
    text: &str,
    within: Range<usize>,
    cuts: &[Range<usize>],
    name: &str,
    first: usize,
) -> String {
    let mut out = String::with_capacity(within.len().min(64 * 1024));
    let mut at = within.start;
    for (i, cut) in cuts.iter().enumerate() {
        out.push_str(&text[at..cut.start]);
        out.push_str(&format!("<{name} {CHUNK}=\"{}\"/>", first + i));
        let breaks = memchr::memchr_iter(b'\n', &text.as_bytes()[cut.clone()]).count();
        out.extend(std::iter::repeat_n('\n', breaks));
        at = cut.end;
    }
    out.push_str(&text[at..within.end]);
    out
}

impl<'a> Chunks<'a> {
    pub(crate) fn new(
        text: &'a str,
        outline: &'a Outline,
        limits: &Limits,
        deadline: Option<&'a Deadline>,
    ) -> Self {
        Self {
            text,
            outline,
            nodes_limit: limits.max_nodes,
            deadline,
            entries_read: vec![false; outline.entries.len()],
            transactions_read: vec![false; outline.transactions.len()],
        }
    }

    /// The entry `placeholder` stands for, with its transactions; `index` is its place in
    /// its statement.
    pub(crate) fn entry(
        &mut self,
        placeholder: Node<'_, '_>,
        index: usize,
    ) -> Result<Entry, CamtError> {
        deadline::check(self.deadline)?;
        let Some(chunk) = placeholder_of(placeholder, self.outline.entries.len()) else {
            // An `Ntry` the pre-scan did not cut out (the file ended inside markup it
            // could not follow) is read where it stands.
            let mut details = Vec::new();
            let mut entry = read_entry(placeholder, index, &mut details)?;
            for detail in details {
                entry.transactions.push(read_transaction(detail)?);
            }
            check_entry(&mut entry, placeholder)?;
            return Ok(entry);
        };
        self.entries_read[chunk] = true;
        let (body, start) = self.entry_text(chunk);
        let (wrapped, wrapper) = wrap(placeholder, &body);
        let tree = self.parse(&wrapped, start, wrapper)?;
        let node = part_of(&tree);
        let mut details = Vec::new();
        let mut entry =
            read_entry(node, index, &mut details).map_err(|e| self.shifted(e, start))?;
        entry.transactions.reserve_exact(details.len());
        for detail in details {
            deadline::check(self.deadline)?;
            entry.transactions.push(self.transaction(detail)?);
        }
        check_entry(&mut entry, node).map_err(|e| self.shifted(e, start))?;
        self.check_unread(&tree)?;
        Ok(entry)
    }

    /// The text of entry `chunk` with its transactions' placeholders, and where it starts.
    fn entry_text(&self, chunk: usize) -> (String, usize) {
        let cut = &self.outline.entries[chunk];
        let transactions = &self.outline.transactions[cut.transactions.clone()];
        let body = with_placeholders(
            self.text,
            cut.range.clone(),
            transactions,
            "TxDtls",
            cut.transactions.start,
        );
        (body, cut.range.start)
    }

    fn transaction(&mut self, placeholder: Node<'_, '_>) -> Result<Transaction, CamtError> {
        let Some(chunk) = placeholder_of(placeholder, self.outline.transactions.len()) else {
            return read_transaction(placeholder);
        };
        self.transactions_read[chunk] = true;
        let range = self.outline.transactions[chunk].clone();
        let start = range.start;
        let (wrapped, wrapper) = wrap(placeholder, &self.text[range]);
        let tree = self.parse(&wrapped, start, wrapper)?;
        read_transaction(part_of(&tree)).map_err(|e| self.shifted(e, start))
    }

    /// Parses every part below `tree` the reading did not reach, only to know each is
    /// well-formed.
    pub(crate) fn check_unread(&mut self, tree: &roxmltree::Document<'_>) -> Result<(), CamtError> {
        for node in tree.descendants().filter(|n| n.has_attribute(CHUNK)) {
            match node.tag_name().name() {
                "Ntry" => {
                    if let Some(chunk) = placeholder_of(node, self.outline.entries.len())
                        && !self.entries_read[chunk]
                    {
                        deadline::check(self.deadline)?;
                        self.entries_read[chunk] = true;
                        let (body, start) = self.entry_text(chunk);
                        let (wrapped, wrapper) = wrap(node, &body);
                        let inner = self.parse(&wrapped, start, wrapper)?;
                        self.check_unread(&inner)?;
                    }
                }
                "TxDtls" => {
                    if let Some(chunk) = placeholder_of(node, self.outline.transactions.len())
                        && !self.transactions_read[chunk]
                    {
                        self.transactions_read[chunk] = true;
                        let range = self.outline.transactions[chunk].clone();
                        let (wrapped, wrapper) = wrap(node, &self.text[range.clone()]);
                        self.parse(&wrapped, range.start, wrapper)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// An error of the part at byte `start`, its line counted in the file. Lines are
    /// counted only for an error: counting them for every part would read the file again
    /// for each.
    fn shifted(&self, err: CamtError, start: usize) -> CamtError {
        err.shifted(line_at(self.text.as_bytes(), start) - 1)
    }

    /// Parses a part wrapped by [`wrap`], which stands at byte `start` of the file after
    /// `wrapper` characters of its wrapper.
    fn parse<'t>(
        &self,
        wrapped: &'t str,
        start: usize,
        wrapper: usize,
    ) -> Result<roxmltree::Document<'t>, CamtError> {
        let options = ParsingOptions {
            allow_dtd: false,
            nodes_limit: self.nodes_limit,
            ..ParsingOptions::default()
        };
        roxmltree::Document::parse_with_options(wrapped, options).map_err(|err| match err {
            roxmltree::Error::NodesLimitReached => CamtError::TooManyNodes {
                limit: self.nodes_limit,
            },
            other => self.moved(other, start, wrapper),
        })
    }

    /// A parse error of a part, its position moved to the file's: the part's first line
    /// is the line it starts on, after `wrapper` characters of the wrapper's start tag.
    fn moved(&self, err: roxmltree::Error, start: usize, wrapper: usize) -> CamtError {
        let message = CamtError::from(err.clone());
        let CamtError::Xml(text) = message else {
            return message;
        };
        let pos = err.pos();
        let written = format!("at {pos}");
        let Some(at) = text.rfind(&written) else {
            return CamtError::Xml(text);
        };
        let bytes = self.text.as_bytes();
        let base_row = line_at(bytes, start);
        let (row, col) = if pos.row == 1 {
            let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |n| n + 1);
            let before = self.text[line_start..start].chars().count() as u32;
            let col = (pos.col as usize).saturating_sub(wrapper) as u32;
            (base_row, before + col.max(1))
        } else {
            (base_row + pos.row - 1, pos.col)
        };
        CamtError::Xml(format!(
            "{}at {row}:{col}{}",
            &text[..at],
            &text[at + written.len()..]
        ))
    }
}

/// `body` inside a wrapper that declares the namespaces in scope at `placeholder`, and
/// how many characters come before `body`.
fn wrap(placeholder: Node<'_, '_>, body: &str) -> (String, usize) {
    let mut open = format!("<{WRAPPER}");
    for ns in placeholder.namespaces() {
        match ns.name() {
            Some("xml") => continue,
            Some(prefix) => open.push_str(&format!(" xmlns:{prefix}=\"")),
            None => open.push_str(" xmlns=\""),
        }
        escape_into(&mut open, ns.uri());
        open.push('"');
    }
    open.push('>');
    let chars = open.chars().count();
    let mut text = String::with_capacity(open.len() + body.len() + WRAPPER.len() + 3);
    text.push_str(&open);
    text.push_str(body);
    text.push_str(&format!("</{WRAPPER}>"));
    (text, chars)
}

/// The part a placeholder names, when it is one.
fn placeholder_of(node: Node<'_, '_>, parts: usize) -> Option<usize> {
    node.attribute(CHUNK)
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n < parts)
}

/// The part's element inside the wrapper.
fn part_of<'a, 'input>(tree: &'a roxmltree::Document<'input>) -> Node<'a, 'input> {
    let wrapper = tree.root_element();
    wrapper.first_element_child().unwrap_or(wrapper)
}

/// A namespace name as an attribute value.
fn escape_into(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}
