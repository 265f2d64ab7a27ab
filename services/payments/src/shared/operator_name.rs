//! The names an operator gives what `coffer admin` sets for an account (connector accounts,
//! profiles): short, lower case and safe in a URL or a log, so none drives unbounded rows
//! or needs quoting.

use coffer_model::validation::FieldError;

const MAX_NAME: usize = 64;

/// Why `name` is refused, as the property `name`, if it is.
pub fn name_refused(name: &str) -> Option<FieldError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    (!ok).then(|| {
        FieldError::not_valid("name", "must be 1 to 64 lower-case letters, digits, - or _")
    })
}
