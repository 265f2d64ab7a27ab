//! What reading a file will take at its peak, estimated from the pre-scan's counts before
//! any tree is built, so a file too costly for [`Limits::max_memory`] is refused while
//! nothing but its text is held.
//!
//! At the peak, the file, the tree of everything outside its entries (the skeleton), the
//! largest entry's and the largest transaction's trees (chunks.rs parses one at a time,
//! each from a copy of its text) and the statements read so far are held together.

use crate::document::{Entry, Transaction};
use crate::error::CamtError;
use crate::limits::Limits;
use crate::prescan::{Counts, Tally};

/// roxmltree's node with its position (the `positions` feature), in bytes.
const NODE: u64 = 80;
/// roxmltree's attribute with its position.
const ATTRIBUTE: u64 = 72;
/// A string kept from a text run: its slot in a struct or a list, and the allocator's
/// smallest chunk with its header.
const STRING: u64 = 24 + 32;

/// What roxmltree allocates for the tree of a part, its text included: a node table sized
/// by the `<` characters (grown by doubling past them) and an attribute table sized by
/// the `=` characters.
pub(crate) fn tree(part: Tally) -> u64 {
    let mut nodes = part.markup.max(1);
    while nodes < part.nodes {
        nodes *= 2;
    }
    part.bytes + nodes * NODE + part.equals * ATTRIBUTE
}

/// The tally of the larger tree of the two, by what roxmltree allocates for it.
pub(crate) fn larger(a: Tally, b: Tally) -> Tally {
    if tree(b) > tree(a) { b } else { a }
}

/// What the statements keep of the file's entries: the entries and transactions, and a
/// string for each text run in them, with its text.
fn statements(counts: &Counts) -> u64 {
    counts.entries * size_of::<Entry>() as u64
        + counts.transactions * size_of::<Transaction>() as u64
        + counts.inside_entries.texts * STRING
        + counts.inside_entries.bytes
}

/// The estimate for a file of `file_bytes` whose text (a copy when it had to be decoded)
/// is `copied` bytes.
pub(crate) fn estimate(counts: &Counts, file_bytes: usize, copied: usize) -> u64 {
    file_bytes as u64
        + copied as u64
        + tree(counts.skeleton)
        + tree(counts.largest_entry)
        + tree(counts.largest_transaction)
        + counts.namespace_refs * 2
        + statements(counts)
}

/// Refuses a file whose estimate is over `limits.max_memory`.
pub(crate) fn check(
    counts: &Counts,
    file_bytes: usize,
    copied: usize,
    limits: &Limits,
) -> Result<(), CamtError> {
    let needed = estimate(counts, file_bytes, copied);
    if needed > limits.max_memory as u64 {
        const MIB: u64 = 1024 * 1024;
        return Err(CamtError::TooMuchMemory {
            needed_mib: needed.div_ceil(MIB),
            limit_mib: limits.max_memory as u64 / MIB,
        });
    }
    Ok(())
}
