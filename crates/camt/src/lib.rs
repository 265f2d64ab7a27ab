//! Reads ISO 20022 bank-to-customer cash management files: camt.053 account statements and
//! camt.054 debit/credit notifications, versions 001.02 to 001.10, as banks deliver them
//! for reconciliation.
//!
//! Pure code: bytes in, [`Document`] or [`CamtError`] out, no I/O. Uploaded files are
//! untrusted, so [`parse`] checks size, encoding, DTDs, nesting, attributes, namespaces,
//! nodes and the memory reading will take before building any tree, builds one tree per
//! entry rather than one of the whole file, and keeps every amount exactly as written.

mod amount;
mod batch_check;
mod chunks;
mod dates;
mod deadline;
mod document;
mod encoding;
mod error;
mod limits;
mod memory;
mod prescan;
mod read_document;
mod read_entry;
mod read_transaction;
mod version;
mod xml;

pub use amount::Amount;
pub use deadline::Deadline;
pub use document::{
    Account, Batch, BatchMismatch, Direction, Document, Entry, MessageType, Party, Statement,
    Transaction,
};
pub use error::CamtError;
pub use limits::Limits;
/// The type of [`Amount::value`], so callers need not depend on `rust_decimal` themselves.
pub use rust_decimal::Decimal;

/// Reads one camt.053 or camt.054 file.
///
/// The checks run cheapest first: the size, then the encoding (declaration and decoding),
/// then a pass over the text for a DTD, the nesting depth, attributes, namespaces and
/// nodes, then the memory the reading will take, estimated from what that pass counted;
/// only then does roxmltree build trees, one part of the file at a time.
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Document, CamtError> {
    read(bytes, limits, None)
}

/// [`parse`], given up with [`CamError::TooSlow`] once `deadline` has passed: checked
/// between the steps and between entries, never inside one tree's parse (each is linear in
/// its part's size once the pass has bounded attributes and namespaces).
///
/// [`CamError::TooSlow`]: CamtError::TooSlow
pub fn parse_until(
    bytes: &[u8],
    limits: &Limits,
    deadline: &Deadline,
) -> Result<Document, CamtError> {
    read(bytes, limits, Some(deadline))
}

fn read(bytes: &[u8], limits: &Limits, deadline: Option<&Deadline>) -> Result<Document, CamtError> {
    if bytes.len() > limits.max_bytes {
        return Err(CamtError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let (encoding, body) = encoding::detect(bytes)?;
    // Decoded first, so bytes that are not text are called that, not something else.
    let text = encoding::decode(body, encoding)?;
    let copied = match &text {
        std::borrow::Cow::Owned(copy) => copy.len(),
        std::borrow::Cow::Borrowed(_) => 0,
    };
    deadline::check(deadline)?;
    let outline = prescan::scan(text.as_bytes(), limits)?;
    memory::check(&outline.counts, bytes.len(), copied, limits)?;
    deadline::check(deadline)?;

    let skeleton = chunks::skeleton(&text, &outline);
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: limits.max_nodes,
        ..roxmltree::ParsingOptions::default()
    };
    let tree =
        roxmltree::Document::parse_with_options(&skeleton, options).map_err(|err| match err {
            roxmltree::Error::NodesLimitReached => CamtError::TooManyNodes {
                limit: limits.max_nodes,
            },
            other => CamtError::from(other),
        })?;
    let mut chunks = chunks::Chunks::new(&text, &outline, limits, deadline);
    let document = read_document::read_document(&tree, &mut chunks)?;
    chunks.check_unread(&tree)?;
    Ok(document)
}
