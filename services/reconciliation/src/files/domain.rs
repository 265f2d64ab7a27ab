//! A bank file's rules that hold wherever it came from.

use coffer_model::text_enum;

text_enum! {
    /// Where a received file stands.
    pub enum FileStatus {
        /// Recorded, to be read when its turn and its next attempt come.
        Waiting => "waiting",
        /// Read: its report is written (and its object removed, or to be by a later pass).
        Done => "done",
    }
}

/// The most characters of a file's name a report keeps.
pub const MAX_NAME_CHARS: usize = 255;

/// A file's name as its report shows it, whoever named it (an uploader's key, a multipart
/// header, an SFTP server's listing): without control characters, since a NUL is no text
/// PostgreSQL keeps and an escape sequence or a line break is no name a person reads, and
/// cut to [`MAX_NAME_CHARS`]. Empty when nothing printable is left.
pub fn shown_name(raw: &str) -> String {
    raw.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_shown_without_control_characters_and_cut() {
        assert_eq!(shown_name("camt054.xml"), "camt054.xml");
        assert_eq!(
            shown_name("a\u{0}b\u{1b}[31m\t\r\n\u{7f}\u{85}.xml"),
            "ab[31m.xml"
        );
        assert_eq!(shown_name("\u{0}\u{7}"), "");
        let long = "é".repeat(300);
        assert_eq!(shown_name(&long).chars().count(), MAX_NAME_CHARS);
    }
}
