//! Faults gathered from every part of a request, so that one answer names them all and
//! none hides another. Pure, and below every part that reads: the aggregations and their
//! ranges both gather here.

use coffer_model::validation::FieldError;

/// Every part read, or every fault of every part.
pub(crate) fn gathered<T>(
    parts: impl Iterator<Item = Result<T, Vec<FieldError>>>,
) -> Result<Vec<T>, Vec<FieldError>> {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for part in parts {
        match part {
            Ok(p) => read.push(p),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(read)
    } else {
        Err(errors)
    }
}
