//! A connector account's rules: its name, its mode, and keys whose prefix says the same
//! mode. Pure: the keys are checked here and sealed by the command.

use coffer_model::text_enum;
use coffer_model::validation::FieldError;

use crate::shared::operator_name::name_refused;

text_enum! {
    /// Test accounts charge nothing real; live ones do. A profile takes its mode.
    pub enum Mode {
        Test => "test",
        Live => "live",
    }
}

text_enum! {
    /// The providers Coffer has a connector for, beside its own test provider.
    pub enum Provider {
        Stripe => "stripe",
    }
}

text_enum! {
    /// What a change to a connector account did, as its change log names it.
    pub enum Change {
        Created => "created",
        WebhookSecretSet => "webhook_secret_set",
        SecretKeyRotated => "secret_key_rotated",
        WebhookSecretRotated => "webhook_secret_rotated",
        PublishableKeySet => "publishable_key_set",
    }
}

/// Keys and secrets have bounds (names too: shared/operator_name.rs), so no input drives
/// unbounded work or rows.
const MAX_SECRET: usize = 255;
const MIN_KEY: usize = 30;
const MIN_WEBHOOK_SECRET: usize = 20;

/// What an operator sets: a new account, or new keys for one of the same name.
pub struct Setting {
    pub account_uuid: String,
    pub name: String,
    pub provider: String,
    pub mode: String,
    /// The provider's secret API key; None keeps the one set before.
    pub secret_key: Option<String>,
    /// A new webhook signing secret; the one before it keeps verifying until the next.
    pub webhook_secret: Option<String>,
    /// The publishable key the payment page uses; None keeps the one set before.
    pub publishable_key: Option<String>,
}

/// A setting whose every part passed: the provider, the mode, and keys of that mode.
pub struct Checked {
    pub provider: Provider,
    pub mode: Mode,
}

/// Checks a setting, naming every offending part.
pub fn check(setting: &Setting) -> Result<Checked, Vec<FieldError>> {
    let mut errors = Vec::new();
    if uuid::Uuid::parse_str(&setting.account_uuid).is_err() {
        errors.push(FieldError::not_valid("account_uuid", "must be a uuid"));
    }
    errors.extend(name_refused(&setting.name));
    let provider = Provider::parse(&setting.provider);
    if provider.is_none() {
        errors.push(FieldError::not_valid("provider", "must be stripe"));
    }
    let mode = Mode::parse(&setting.mode);
    if mode.is_none() {
        errors.push(FieldError::not_valid("mode", "must be test or live"));
    }
    if let (Some(key), Some(mode)) = (&setting.secret_key, mode)
        && let Some(why) = key_refused(key, mode)
    {
        errors.push(FieldError::not_valid("secret_key", why));
    }
    if let Some(secret) = &setting.webhook_secret
        && webhook_secret_refused(secret)
    {
        errors.push(FieldError::not_valid(
            "webhook_secret",
            "must be a Stripe webhook signing secret (whsec_...)",
        ));
    }
    if let (Some(key), Some(mode)) = (&setting.publishable_key, mode)
        && let Some(why) = publishable_key_refused(key, mode)
    {
        errors.push(FieldError::not_valid("publishable_key", why));
    }
    match (provider, mode) {
        (Some(provider), Some(mode)) if errors.is_empty() => Ok(Checked { provider, mode }),
        _ => Err(errors),
    }
}

/// Why a secret key does not fit the mode, if it does not: Stripe's secret and restricted
/// keys say their mode in their prefix, and a live key in a test account (or the reverse)
/// would charge real cards where none were meant, or none where they were.
fn key_refused(key: &str, mode: Mode) -> Option<&'static str> {
    let prefixes: &[&str] = match mode {
        Mode::Test => &["sk_test_", "rk_test_"],
        Mode::Live => &["sk_live_", "rk_live_"],
    };
    if key.len() > MAX_SECRET || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Some("must be one Stripe secret key: letters, digits and _, at most 255");
    }
    if !prefixes.iter().any(|p| key.starts_with(p)) {
        return Some(match mode {
            Mode::Test => "a test account takes a test key (sk_test_... or rk_test_...)",
            Mode::Live => "a live account takes a live key (sk_live_... or rk_live_...)",
        });
    }
    // Stripe's shortest keys have 24 characters after the prefix; fewer is a key cut short.
    if key.len() < MIN_KEY {
        return Some("is too short for a Stripe secret key");
    }
    None
}

/// Why a publishable key does not fit the mode, if it does not (`pk_test_` or `pk_live_`,
/// as the secret key's).
fn publishable_key_refused(key: &str, mode: Mode) -> Option<&'static str> {
    let prefix = match mode {
        Mode::Test => "pk_test_",
        Mode::Live => "pk_live_",
    };
    let shaped = (MIN_KEY..=MAX_SECRET).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !shaped || !key.starts_with(prefix) {
        return Some(match mode {
            Mode::Test => "a test account takes a test publishable key (pk_test_...)",
            Mode::Live => "a live account takes a live publishable key (pk_live_...)",
        });
    }
    None
}

/// Whether a webhook signing secret looks like one Stripe makes (`whsec_` and 32 or more
/// letters and digits).
fn webhook_secret_refused(secret: &str) -> bool {
    !secret.starts_with("whsec_")
        || !(MIN_WEBHOOK_SECRET..=MAX_SECRET).contains(&secret.len())
        || !secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// How a key is named where it cannot be shown: its prefix and its last four characters,
/// as Stripe's dashboard names it.
pub fn hint(key: &str) -> String {
    let prefix = key.get(..8).unwrap_or_default();
    let last = key.get(key.len().saturating_sub(4)..).unwrap_or_default();
    format!("{prefix}...{last}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(mode: &str, key: Option<&str>) -> Setting {
        // A key of the right shape unless the test says otherwise.
        Setting {
            account_uuid: "0b7c4b1e-2f7d-4a51-9d0e-0d3c1f0e6a11".into(),
            name: "main".into(),
            provider: "stripe".into(),
            mode: mode.into(),
            secret_key: key.map(Into::into),
            webhook_secret: None,
            publishable_key: None,
        }
    }

    #[test]
    fn a_key_must_say_the_accounts_mode() {
        let key = |prefix: &str| format!("{prefix}51Habcdefghijklmnopqrstuv");
        assert!(check(&setting("test", Some(&key("sk_test_")))).is_ok());
        assert!(check(&setting("live", Some(&key("rk_live_")))).is_ok());
        let refused = check(&setting("live", Some(&key("sk_test_"))))
            .err()
            .unwrap();
        assert_eq!(refused[0].property, "secret_key");
        assert!(check(&setting("test", Some(&key("sk_live_")))).is_err());
        // Cut short, or with a character no Stripe key has.
        assert!(check(&setting("test", Some("sk_test_abcdefgh"))).is_err());
        assert!(check(&setting("test", Some(&format!("{}\u{7}", key("sk_test_"))))).is_err());
    }

    #[test]
    fn every_wrong_part_is_named() {
        let mut s = setting("staging", Some("pk_test_51Habcdefghijklmnopqrstuv"));
        s.name = "Main Account".into();
        s.provider = "adyen".into();
        s.account_uuid = "x".into();
        s.webhook_secret = Some("secret".into());
        let named: Vec<_> = check(&s)
            .err()
            .unwrap()
            .into_iter()
            .map(|e| e.property)
            .collect();
        assert_eq!(
            named,
            ["account_uuid", "name", "provider", "mode", "webhook_secret"]
        );
    }

    #[test]
    fn a_publishable_key_says_the_accounts_mode_too() {
        let mut s = setting("test", None);
        s.publishable_key = Some("pk_test_51Habcdefghijklmnopqrstuv".into());
        assert!(check(&s).is_ok());
        s.publishable_key = Some("pk_live_51Habcdefghijklmnopqrstuv".into());
        assert_eq!(check(&s).err().unwrap()[0].property, "publishable_key");
        s.publishable_key = Some("sk_test_51Habcdefghijklmnopqrstuv".into());
        assert!(check(&s).is_err());
    }

    #[test]
    fn a_hint_shows_the_prefix_and_the_last_four() {
        assert_eq!(hint("sk_test_51Habcdefghijkl1234"), "sk_test_...1234");
    }
}
