//! Why a file could not be read. The messages are shown to the finance staff who uploaded
//! the file, so they name the element and the value rather than the parser's internals.

/// A camt file that cannot be read, and why. Serialisable so a caller can keep the
/// details beside the message it shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
pub enum CamtError {
    #[error("the file is larger than the {limit} bytes allowed")]
    TooLarge { limit: usize },

    #[error("the file's character encoding cannot be read: {0}")]
    Encoding(String),

    #[error(
        "the file contains a document type declaration (DTD); bank statements never need one, \
         so the file is refused"
    )]
    Dtd,

    #[error("the file nests elements more than {limit} levels deep")]
    TooDeep { limit: u32 },

    #[error("the file has more than {limit} XML nodes")]
    TooManyNodes { limit: u32 },

    #[error("an element on line {line} has more than {limit} attributes")]
    TooManyAttributes { limit: u32, line: u32 },

    #[error("the file has more than {limit} attributes")]
    TooManyAttributesInFile { limit: u32 },

    #[error(
        "an element on line {line} has more than {limit} namespaces declared on it and around it"
    )]
    TooManyNamespaces { limit: u32, line: u32 },

    #[error(
        "reading the file would take about {needed_mib} MiB of memory, more than the \
         {limit_mib} MiB allowed for it"
    )]
    TooMuchMemory { needed_mib: u64, limit_mib: u64 },

    #[error("reading the file took longer than the {} allowed", seconds(.allowed))]
    TooSlow { allowed: std::time::Duration },

    #[error("the file is not well-formed XML: {0}")]
    Xml(String),

    #[error("the file holds no camt.053 statement or camt.054 notification")]
    NotCamt,

    #[error("this camt version is not supported: {0}")]
    UnsupportedVersion(String),

    #[error("the file has a group header but no statement or notification")]
    NoStatement,

    #[error("the file lacks the required element {path}")]
    Missing { path: &'static str },

    #[error("{path} on line {line} holds {value:?}, which is not an exact amount: {reason}")]
    BadAmount {
        path: &'static str,
        line: u32,
        value: String,
        reason: &'static str,
    },

    #[error("{path} on line {line} holds {value:?}, which is not a date")]
    BadDate {
        path: &'static str,
        line: u32,
        value: String,
    },

    #[error("{path} on line {line} holds {value:?}, which is not an allowed value")]
    BadValue {
        path: &'static str,
        line: u32,
        value: String,
    },
}

/// `60 s`, or `0.5 s` for a budget under a second (tests).
fn seconds(allowed: &std::time::Duration) -> String {
    if allowed.subsec_millis() == 0 {
        format!("{} s", allowed.as_secs())
    } else {
        format!("{:.1} s", allowed.as_secs_f64())
    }
}

impl CamtError {
    /// The same error with its line moved down by `rows`: a chunk's lines count from the
    /// line the chunk starts on (chunks.rs).
    pub(crate) fn shifted(self, rows: u32) -> Self {
        match self {
            CamtError::BadAmount {
                path,
                line,
                value,
                reason,
            } => CamtError::BadAmount {
                path,
                line: line.saturating_add(rows),
                value,
                reason,
            },
            CamtError::BadDate { path, line, value } => CamtError::BadDate {
                path,
                line: line.saturating_add(rows),
                value,
            },
            CamtError::BadValue { path, line, value } => CamtError::BadValue {
                path,
                line: line.saturating_add(rows),
                value,
            },
            other => other,
        }
    }
}

impl From<roxmltree::Error> for CamtError {
    fn from(err: roxmltree::Error) -> Self {
        match err {
            // The pre-scan refuses a DOCTYPE first; this keeps the answer the same should
            // roxmltree find one the scan did not.
            roxmltree::Error::DtdDetected => CamtError::Dtd,
            // Display gives the line and column, which is what a person needs to find it.
            other => CamtError::Xml(other.to_string()),
        }
    }
}
