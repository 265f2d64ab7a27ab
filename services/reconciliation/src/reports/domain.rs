//! A report's states.

use coffer_model::text_enum;

text_enum! {
    /// How reading a file ended.
    pub enum ReportStatus {
        /// Read and processed: its items are applied.
        Processed => "processed",
        /// Not applied at all: the file could not be read or does not fit its blueprint;
        /// `reason` says why.
        Failed => "failed",
        /// The same file (message id and account, or the same bytes) was processed
        /// before; nothing was applied again (`duplicate_of` names the first report).
        Duplicate => "duplicate",
    }
}
