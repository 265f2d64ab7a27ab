//! Reads ISO 20022 bank-to-customer cash management files: camt.053 account statements and
//! camt.054 debit/credit notifications, versions 001.02 to 001.10, as banks deliver them
//! for reconciliation.
//!
//! Pure code: bytes in, [`Document`] or [`CamtError`] out, no I/O. Uploaded files are
//! untrusted, so [`parse`] checks size, encoding, DTDs and nesting before building a tree,
//! and every amount is kept exactly as written.

mod amount;
mod batch_check;
mod dates;
mod document;
mod encoding;
mod error;
mod limits;
mod nesting;
mod read_document;
mod read_entry;
mod read_transaction;
mod version;
mod xml;

pub use amount::Amount;
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
/// then a pass over the text for a DTD and the nesting depth, and only then roxmltree,
/// bounded by `limits.max_nodes`.
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Document, CamtError> {
    if bytes.len() > limits.max_bytes {
        return Err(CamtError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let (encoding, body) = encoding::detect(bytes)?;
    // Decoded first, so bytes that are not text are called that, not something else.
    let text = encoding::decode(body, encoding)?;
    nesting::check(text.as_bytes(), limits.max_depth)?;

    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: limits.max_nodes,
        ..roxmltree::ParsingOptions::default()
    };
    let tree =
        roxmltree::Document::parse_with_options(&text, options).map_err(|err| match err {
            roxmltree::Error::NodesLimitReached => CamtError::TooManyNodes {
                limit: limits.max_nodes,
            },
            other => CamtError::from(other),
        })?;
    read_document::read_document(&tree)
}
