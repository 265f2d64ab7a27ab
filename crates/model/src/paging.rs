//! `from`/`size` paging of list endpoints.

use crate::validation::{FieldError, Violations};
use serde::Deserialize;

/// Raw query parameters. They stay strings so that `size=abc` becomes a property-named
/// validation error in the operation's shape instead of a generic query-parsing failure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PagingQuery {
    pub from: Option<String>,
    pub size: Option<String>,
}

/// Per-endpoint defaults, since SPEC.md gives different ones (10 for payments, 100 for
/// supporters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagingLimits {
    pub default_size: u32,
    pub max_size: u32,
}

impl PagingLimits {
    pub const fn new(default_size: u32, max_size: u32) -> Self {
        Self {
            default_size,
            max_size,
        }
    }
}

/// A validated window: skip `from` results, return at most `size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub from: u32,
    pub size: u32,
}

impl Paging {
    /// SQL OFFSET/LIMIT take signed 64-bit integers.
    pub fn offset(&self) -> i64 {
        i64::from(self.from)
    }

    pub fn limit(&self) -> i64 {
        i64::from(self.size)
    }
}

const NOT_A_COUNT: &str = "This value must be a whole number of zero or more.";

/// Digits only, like every other number Coffer reads from text: no sign, no spaces.
fn parse_count(property: &str, raw: &str) -> Result<u32, FieldError> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FieldError::not_valid(property, NOT_A_COUNT));
    }
    raw.parse::<u32>()
        .map_err(|_| FieldError::not_valid(property, "This value is too large."))
}

impl PagingQuery {
    pub fn resolve(&self, limits: PagingLimits) -> Result<Paging, Vec<FieldError>> {
        let mut violations = Violations::new();
        let from = match &self.from {
            None => Some(0),
            Some(raw) => violations.check(parse_count("from", raw)),
        };
        let size = match &self.size {
            None => Some(limits.default_size),
            Some(raw) => violations.check(parse_count("size", raw).and_then(|size| {
                if size > limits.max_size {
                    Err(FieldError::not_valid(
                        "size",
                        format!("This value must not be greater than {}.", limits.max_size),
                    ))
                } else {
                    Ok(size)
                }
            })),
        };
        match (from, size) {
            (Some(from), Some(size)) => violations.finish(Paging { from, size }),
            _ => Err(violations.into_vec()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LIMITS: PagingLimits = PagingLimits::new(10, 10_000);

    fn query(from: Option<&str>, size: Option<&str>) -> PagingQuery {
        PagingQuery {
            from: from.map(str::to_owned),
            size: size.map(str::to_owned),
        }
    }

    #[test]
    fn defaults_apply_when_absent() {
        assert_eq!(
            query(None, None).resolve(LIMITS).unwrap(),
            Paging { from: 0, size: 10 }
        );
    }

    #[test]
    fn accepts_values_in_range() {
        let p = query(Some("20"), Some("10000")).resolve(LIMITS).unwrap();
        assert_eq!(
            p,
            Paging {
                from: 20,
                size: 10_000
            }
        );
        assert_eq!((p.offset(), p.limit()), (20, 10_000));
        assert_eq!(query(None, Some("0")).resolve(LIMITS).unwrap().size, 0);
    }

    #[test]
    fn names_each_bad_parameter() {
        let errors = query(Some("-1"), Some("abc")).resolve(LIMITS).unwrap_err();
        let properties: Vec<_> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(properties, ["from", "size"]);
        for raw in ["", "+1", " 1", "1.5", "4294967296"] {
            let errors = query(Some(raw), None).resolve(LIMITS).unwrap_err();
            assert_eq!(errors.len(), 1, "{raw:?}");
            assert_eq!(errors[0].property, "from");
        }
    }

    #[test]
    fn size_above_maximum_names_the_maximum() {
        let errors = query(None, Some("10001")).resolve(LIMITS).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].property, "size");
        assert!(errors[0].message.contains("10000"), "{}", errors[0].message);
    }

    #[test]
    fn deserialises_from_a_query_string_shape() {
        let q: PagingQuery = serde_json::from_str(r#"{"size":"5"}"#).unwrap();
        assert_eq!(q, query(None, Some("5")));
    }
}
