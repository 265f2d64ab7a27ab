//! A profile an operator sets: which connector account serves which method of an account.
//! Pure: checked here, written by the command.

use coffer_model::validation::FieldError;

use super::test_profile_name;
use crate::shared::method::PaymentMethod;
use crate::shared::operator_name::name_refused;
use crate::shared::profile::Profile;

/// What requests send for "the account's default for the method" (shared/profile_choice.rs);
/// never a profile's own name.
const RESERVED: &str = "default";

/// What `coffer admin profile set` asks for.
pub struct ProfileSetting {
    pub account_uuid: String,
    pub name: String,
    pub payment_method: String,
    /// Made the default of its method in its mode, replacing the one before.
    pub default: bool,
}

/// The connector account a profile names, as the command found it.
pub struct Serving {
    pub uuid: String,
    pub provider: &'static str,
    /// A live account's profiles charge real money (`test_mode: false`).
    pub live: bool,
}

/// Whether a profile as it stands is served as the setting asks: the same connector
/// account, method and mode.
pub fn same_serving(was: &Profile, method: PaymentMethod, serving: &Serving) -> bool {
    was.connector_account_uuid.as_deref() == Some(serving.uuid.as_str())
        && was.payment_method == method
        && was.test_mode != serving.live
}

/// Which methods a provider's profiles may take: Stripe's connector charges cards and
/// collects SEPA direct debits.
fn takes(provider: &str, method: PaymentMethod) -> bool {
    provider == "stripe" && matches!(method, PaymentMethod::Card | PaymentMethod::SepaDd)
}

/// Checks a setting against the connector account that will serve it, naming every
/// offending part; answers the method.
pub fn check(
    setting: &ProfileSetting,
    serving: &Serving,
) -> Result<PaymentMethod, Vec<FieldError>> {
    let mut errors = Vec::new();
    if uuid::Uuid::parse_str(&setting.account_uuid).is_err() {
        errors.push(FieldError::not_valid("account_uuid", "must be a uuid"));
    }
    let name_refused = name_refused(&setting.name);
    let name_ok = name_refused.is_none();
    errors.extend(name_refused);
    // The test provider's profiles keep their names, and "default" means the default.
    let reserved = setting.name == RESERVED
        || PaymentMethod::OFFERED
            .iter()
            .any(|m| setting.name == test_profile_name(*m));
    if name_ok && reserved {
        errors.push(FieldError::not_valid(
            "name",
            "is reserved (default, and the test provider's <method>_test)",
        ));
    }
    let method = PaymentMethod::parse(&setting.payment_method)
        .filter(|m| PaymentMethod::OFFERED.contains(m));
    match method {
        None => errors.push(FieldError::not_valid(
            "payment_method",
            "must be card, sepa_dd, twint or paypal",
        )),
        Some(m) if !takes(serving.provider, m) => errors.push(FieldError::not_valid(
            "payment_method",
            format!(
                "a {} connector account serves card and sepa_dd profiles only",
                serving.provider
            ),
        )),
        Some(_) => {}
    }
    match method {
        Some(m) if errors.is_empty() => Ok(m),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(name: &str, method: &str) -> ProfileSetting {
        ProfileSetting {
            account_uuid: "0b7c4b1e-2f7d-4a51-9d0e-0d3c1f0e6a11".into(),
            name: name.into(),
            payment_method: method.into(),
            default: false,
        }
    }

    const STRIPE: Serving = Serving {
        uuid: String::new(),
        provider: "stripe",
        live: false,
    };

    fn properties(errors: Vec<FieldError>) -> Vec<String> {
        errors.into_iter().map(|e| e.property).collect()
    }

    #[test]
    fn a_card_profile_of_a_stripe_account_is_taken() {
        assert_eq!(
            check(&setting("card_stripe", "card"), &STRIPE).ok(),
            Some(PaymentMethod::Card)
        );
        assert_eq!(
            check(&setting("sepa_stripe", "sepa_dd"), &STRIPE).ok(),
            Some(PaymentMethod::SepaDd)
        );
    }

    #[test]
    fn reserved_names_and_other_methods_are_refused_together() {
        let refused = check(&setting("card_test", "twint"), &STRIPE)
            .err()
            .unwrap();
        assert_eq!(properties(refused), ["name", "payment_method"]);
        let refused = check(&setting("default", "bank_transfer"), &STRIPE)
            .err()
            .unwrap();
        assert_eq!(properties(refused), ["name", "payment_method"]);
        let refused = check(&setting("Card Live", "card"), &STRIPE).err().unwrap();
        assert_eq!(properties(refused), ["name"]);
    }
}
