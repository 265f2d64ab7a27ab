//! docs/events.md, written from the catalogue (catalogue.rs) and RaiseNow's names for its
//! events (raisenow_names.rs); a test keeps the file equal to it.

use crate::catalogue::CATALOGUE;
use crate::raisenow_names;

/// docs/events.md, as generated from the catalogue.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Domain events\n\n\
         Generated from `crates/events/src/catalogue.rs`; a test keeps this file equal to it.\n\n\
         Every event travels in the envelope\n\
         `{\"event\": {\"id\", \"name\", \"timestamp\", \"object\", \"object_uuid\", \
         \"organisation_uuid\", \"account_uuid\", \"data\"}}`, where `timestamp` is in Unix \
         milliseconds. Names are `<prefix>.event.<domain>.<object>.<action>`; the prefix is \
         `coffer` unless configured (`events.prefix`). Each domain has one topic, \
         `<prefix>.events.<domain>`, and messages are keyed by `object_uuid`, so the events of \
         one object arrive in order.\n\n\
         | name (prefix `coffer`) | RaiseNow's name | topic | description |\n|---|---|---|---|\n",
    );
    for kind in CATALOGUE {
        let raisenow =
            raisenow_names::of(kind).map_or_else(|| "none".to_owned(), |name| format!("`{name}`"));
        out.push_str(&format!(
            "| `{}` | {raisenow} | `{}` | {} |\n",
            kind.name("coffer"),
            kind.topic("coffer"),
            kind.description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    out.push_str(&raisenow_names::markdown());
    out
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn docs_events_md_matches_the_catalogue() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.md");
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        let expected = markdown();
        if std::env::var_os("COFFER_UPDATE_DOCS").is_some() {
            std::fs::write(path, &expected).unwrap();
        } else if on_disk != expected {
            panic!(
                "docs/events.md is out of date: run COFFER_UPDATE_DOCS=1 cargo test -p coffer-events"
            );
        }
    }
}
