//! What the pass hands on: where the entries and their transactions are (for chunks.rs),
//! and what each tree will hold (for the estimate in memory.rs), with the sums of tallies
//! the pass keeps as it goes.

use std::ops::Range;

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

/// A part's tally once its bytes are known.
pub(super) fn finished(tally: Tally, bytes: &[u8]) -> Tally {
    Tally {
        bytes: bytes.len() as u64,
        equals: count_equals(bytes),
        ..tally
    }
}

pub(super) fn count_equals(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'=', bytes).count() as u64
}

pub(super) fn add(a: Tally, b: Tally) -> Tally {
    Tally {
        bytes: a.bytes + b.bytes,
        markup: a.markup + b.markup,
        nodes: a.nodes + b.nodes,
        equals: a.equals + b.equals,
        texts: a.texts + b.texts,
    }
}
