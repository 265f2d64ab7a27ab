//! Following the parts the file is cut into (the skeleton, each entry, each transaction
//! inside an entry) as they open and close, and keeping the tally of each, so chunks.rs
//! can parse one at a time and memory.rs can size the largest.

use super::outline::{Cut, Outline, Tally, add, count_equals, finished};
use crate::memory::larger;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Skeleton,
    Entry,
    Transaction,
}

/// The parts the scan has cut so far, and the tally of the one it is in.
pub(super) struct Parts<'a> {
    bytes: &'a [u8],
    pub(super) outline: Outline,
    /// The tally of the part being read, the entry's kept while one of its transactions is.
    pub(super) current: Tally,
    entry_tally: Tally,
    entry_start: usize,
    transaction_start: usize,
    pub(super) part: Part,
}

impl<'a> Parts<'a> {
    /// In the skeleton of `bytes`, before its first tag.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            outline: Outline::default(),
            current: Tally::default(),
            entry_tally: Tally::default(),
            entry_start: 0,
            transaction_start: 0,
            part: Part::Skeleton,
        }
    }

    /// Starts counting a new part at the `<` at `start`.
    pub(super) fn enter(&mut self, part: Part, start: usize) {
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
    pub(super) fn leave(&mut self, end: usize) {
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

    pub(super) fn finish(mut self) -> Outline {
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
