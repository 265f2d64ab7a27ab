//! What a configuration holds, checked.

use coffer_model::validation::{FieldError, Violations, display_name};
use serde::Serialize;
use uuid::Uuid;

/// Accounts one configuration may make (identity's bound for one onboarding).
pub const MAX_LABELS: usize = 20;
pub const MAX_LABEL_CHARS: usize = 100;
pub const LOCALES: [&str; 4] = ["en", "de", "fr", "it"];

#[derive(Debug, Clone)]
pub struct ConfigurationInput {
    pub partner_uuid: Uuid,
    pub account_labels: Vec<String>,
    pub default_locale: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Configuration {
    pub uuid: String,
    pub partner_uuid: String,
    pub account_labels: Vec<String>,
    pub default_locale: String,
    pub created: i64,
}

impl ConfigurationInput {
    /// The labels trimmed, each once; every fault named.
    pub fn validate(self) -> Result<(Vec<String>, String), Vec<FieldError>> {
        let mut v = Violations::new();
        if self.account_labels.is_empty() || self.account_labels.len() > MAX_LABELS {
            v.push(FieldError::not_valid(
                "account_labels",
                format!("must name 1 to {MAX_LABELS} labels"),
            ));
        }
        let mut labels: Vec<String> = Vec::new();
        for (i, raw) in self.account_labels.iter().enumerate() {
            if let Some(label) = v.check(display_name(
                &format!("account_labels[{i}]"),
                raw,
                MAX_LABEL_CHARS,
            )) {
                if labels.contains(&label) {
                    v.push(FieldError::not_valid(
                        format!("account_labels[{i}]"),
                        "is given twice",
                    ));
                } else {
                    labels.push(label);
                }
            }
        }
        let locale = self.default_locale.unwrap_or_else(|| "en".into());
        if !LOCALES.contains(&locale.as_str()) {
            v.push(FieldError::invalid_choice(
                "default_locale",
                "must be one of en, de, fr, it",
            ));
        }
        v.finish((labels, locale))
    }
}
