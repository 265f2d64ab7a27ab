//! Reading markup from bytes without a tree: one start tag (its name, attributes and
//! namespace declarations), the end of a comment or the like, and the line of a position
//! for a refusal's message.

use memchr::{memchr, memchr3, memmem};

/// The line (from 1) the byte at `at` is on, for a refusal's message.
pub(crate) fn line_at(bytes: &[u8], at: usize) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', &bytes[..at.min(bytes.len())]).count();
    u32::try_from(newlines + 1).unwrap_or(u32::MAX)
}

/// The position just after `needle`, searching from `from`.
pub(super) fn skip_past(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let haystack = bytes.get(from..)?;
    memmem::find(haystack, needle).map(|at| from + at + needle.len())
}

/// A start tag as the scan needs it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct StartTag<'a> {
    /// Its name without a prefix.
    pub(super) local_name: &'a [u8],
    /// Quoted values: one per attribute, namespace declarations included.
    pub(super) attributes: u32,
    /// `xmlns` and `xmlns:…` attributes.
    pub(super) declares: u32,
    pub(super) self_closing: bool,
    /// Just past its `>`.
    pub(super) end: usize,
}

/// The start tag whose `<` is at `start`. Attribute values may hold `>`, so quoted text is
/// stepped over; `None` when the tag never closes.
pub(super) fn start_tag(bytes: &[u8], start: usize) -> Option<StartTag<'_>> {
    let name_end = bytes[start + 1..]
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .map_or(bytes.len(), |n| start + 1 + n);
    let name = &bytes[start + 1..name_end];
    let local_name = match memchr::memrchr(b':', name) {
        Some(colon) => &name[colon + 1..],
        None => name,
    };
    let (mut attributes, mut declares) = (0u32, 0u32);
    let mut from = name_end;
    loop {
        let at = from + memchr3(b'>', b'"', b'\'', bytes.get(from..)?)?;
        match bytes[at] {
            b'>' => {
                return Some(StartTag {
                    local_name,
                    attributes,
                    declares,
                    self_closing: at > 0 && bytes[at - 1] == b'/',
                    end: at + 1,
                });
            }
            quote => {
                attributes = attributes.saturating_add(1);
                if declares_namespace(&bytes[name_end..at]) {
                    declares += 1;
                }
                from = at + 1 + memchr(quote, bytes.get(at + 1..)?)? + 1;
            }
        }
    }
}

/// Whether the attribute whose `="` ends `before` is `xmlns` or `xmlns:…`.
fn declares_namespace(before: &[u8]) -> bool {
    let trimmed = trim_end(before);
    let Some(name) = trimmed.strip_suffix(b"=") else {
        return false;
    };
    let name = trim_end(name);
    // A name holds no blank and no quote: stopping at either keeps each attribute's look
    // back to its own name, however many share the tag.
    let start = name
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\''))
        .map_or(0, |at| at + 1);
    let name = &name[start..];
    name == b"xmlns" || name.starts_with(b"xmlns:")
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let kept = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    &bytes[..kept]
}
