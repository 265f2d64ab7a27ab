//! Following the parts the file is cut into (the skeleton, each entry, each transaction
//! inside an entry) as they open and close, and keeping the tally of each, so chunks.rs
//! can parse one at a time and memory.rs can size the largest.

use super::outline::{Cut, Outline, Tally, add, count_equals, finished, larger};
use super::scan::Scan;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Skeleton,
    Entry,
    Transaction,
}

impl Scan<'_> {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::ops::Range;

    use super::super::scan::scan;
    use crate::limits::Limits;

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
