use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use tracing_subscriber::EnvFilter;

use crate::config::{LogFormat, LogSettings};

/// Installs the global subscriber: JSON lines by default, for log shippers; text for a
/// person at a terminal. `RUST_LOG`, when set, wins over the configured level.
///
/// Colours only on a terminal: written to a file or a pipe, escape codes are noise that
/// every reader (grep, a log shipper, an editor) has to strip.
pub fn init(settings: &LogSettings) {
    log_requests(settings.requests);
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&settings.level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    // A second init (tests, or two services in one process) keeps the first subscriber.
    let _ = match settings.format {
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// `log.requests`: whether each request answered is logged. Process-wide like the
/// subscriber itself, which [`init`] sets once for every service in the process.
static REQUEST_LINES: AtomicBool = AtomicBool::new(false);

/// Turns the line per request on or off, as `log.requests` does; for a process that
/// installs a subscriber of its own (tests that read the log).
pub fn log_requests(on: bool) {
    REQUEST_LINES.store(on, Ordering::Relaxed);
}

pub(crate) fn request_lines() -> bool {
    REQUEST_LINES.load(Ordering::Relaxed)
}
