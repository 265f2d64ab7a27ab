use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::{LogFormat, LogSettings};

/// Installs the global subscriber: JSON lines by default, for log shippers; text for a
/// person at a terminal. `RUST_LOG`, when set, wins over the configured level.
///
/// Colours only on a terminal: written to a file or a pipe, escape codes are noise that
/// every reader (grep, a log shipper, an editor) has to strip.
pub fn init(settings: &LogSettings) {
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
