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
//!
//! scan.rs walks the text and refuses; parts.rs follows the entries and transactions as
//! they open and close; markup.rs reads one tag at a time; outline.rs is what the pass
//! hands on.

mod markup;
mod outline;
mod parts;
mod scan;

pub(crate) use markup::line_at;
pub(crate) use outline::{Counts, Outline, Tally};
pub(crate) use scan::scan;
