//! W3C trace context (`traceparent`), carried from a request into the events it causes and
//! on into the consumers' logs, so one trace id ties them together.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits: the span that caused this one.
    pub parent_id: String,
    pub sampled: bool,
}

/// Random hex from the OS generator, by way of a v4 uuid: its version digit is never zero,
/// so the id cannot be the all-zero value W3C trace context forbids.
fn random_hex(bytes: usize) -> String {
    let mut hex = uuid::Uuid::new_v4().simple().to_string();
    hex.truncate(bytes * 2);
    hex
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl TraceContext {
    /// A new trace, for work no request started (the admin CLI, a scheduler).
    pub fn new_root() -> Self {
        Self {
            trace_id: random_hex(16),
            parent_id: random_hex(8),
            sampled: true,
        }
    }

    /// Parses a `traceparent` header (version 00); `None` if it is not valid.
    pub fn parse(header: &str) -> Option<Self> {
        let mut parts = header.trim().split('-');
        let (version, trace_id, parent_id, flags) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version != "00"
            || parts.next().is_some()
            || !is_hex(trace_id, 32)
            || !is_hex(parent_id, 16)
            || !is_hex(flags, 2)
        {
            return None;
        }
        if trace_id.bytes().all(|b| b == b'0') || parent_id.bytes().all(|b| b == b'0') {
            return None;
        }
        let sampled = u8::from_str_radix(flags, 16).ok()? & 1 == 1;
        Some(Self {
            trace_id: trace_id.to_owned(),
            parent_id: parent_id.to_owned(),
            sampled,
        })
    }

    /// The same trace, one hop further: a new span id for the next process to name as parent.
    pub fn child(&self) -> Self {
        Self {
            trace_id: self.trace_id.clone(),
            parent_id: random_hex(8),
            sampled: self.sampled,
        }
    }

    pub fn header(&self) -> String {
        format!(
            "00-{}-{}-{}",
            self.trace_id,
            self.parent_id,
            if self.sampled { "01" } else { "00" }
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_garbage() {
        let t = TraceContext::new_root();
        assert_eq!(TraceContext::parse(&t.header()), Some(t.clone()));
        assert_eq!(t.child().trace_id, t.trace_id);
        assert_ne!(t.child().parent_id, t.parent_id);
        for bad in [
            "",
            "00-abc-def-01",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceContext::parse(bad), None, "{bad}");
        }
        let parsed =
            TraceContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert!(parsed.sampled);
    }
}
