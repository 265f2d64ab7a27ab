//! Which payment method profile a payment or payment source request uses: the one it
//! names, or the account's default for its method, read with the account's organisation
//! (a short-lived copy of both is kept, see [`KnownAccounts`]).

use coffer_auth::Caller;
use coffer_directory::account_organisation;
use coffer_model::validation::FieldError;
use coffer_store::Store;

use super::profile::{KnownAccounts, Profile};
use super::profile_store as profiles;
use super::request::Checked;
use crate::error::PaymentsError;

/// The account's organisation, once the caller may touch the account, and the profile the
/// request names (or the default for its method).
pub(crate) async fn account_and_profile(
    store: &Store,
    accounts: &KnownAccounts,
    caller: &Caller,
    checked: &Checked,
) -> Result<(String, Profile), PaymentsError> {
    let key_account = checked.account.to_string();
    let (organisation, profiles) = match accounts.get(&key_account) {
        Some(known) => known,
        None => {
            let account = key_account.clone();
            let (organisation, profiles) = store
                .query(move |db| {
                    let organisation = account_organisation(db, &account)?;
                    let profiles = profiles::list(db, Some(&account), None)?;
                    Ok((organisation, profiles))
                })
                .await?;
            let organisation = organisation.ok_or(PaymentsError::not_found("Account"))?;
            accounts.insert(key_account, (organisation.clone(), profiles.clone()));
            (organisation, profiles)
        }
    };
    caller.require_account(
        checked.account,
        organisation.parse().map_err(PaymentsError::internal)?,
    )?;
    Ok((organisation, choose_profile(profiles, checked)?))
}

/// RaiseNow's examples send this for "the account's default for the method"; it names
/// that default even where a profile happens to be called so (docs/payments.md).
const DEFAULT_PROFILE: &str = "default";

/// The profile a request names (by uuid or name), or the account's default for its method.
fn choose_profile(profiles: Vec<Profile>, checked: &Checked) -> Result<Profile, PaymentsError> {
    let profile = match checked.profile.as_deref() {
        Some(wanted) if wanted != DEFAULT_PROFILE => profiles
            .into_iter()
            .find(|p| p.uuid == wanted || p.name == wanted)
            .ok_or_else(|| {
                PaymentsError::invalid("profile", "no such payment method profile for this account")
            })?,
        _ => {
            let Some(method) = checked.payment_method.as_deref() else {
                return Err(PaymentsError::invalid_all(vec![FieldError::new(
                    coffer_model::validation::codes::NOT_NULL,
                    "payment_method",
                    "profile \"default\" needs the payment_method it is the default of",
                )]));
            };
            // One default per method and mode: a live one, where the account has one,
            // is what its donations go through (docs/payments.md, "Connecting Stripe").
            profiles
                .into_iter()
                .filter(|p| p.payment_method.as_str() == method && p.is_default)
                .min_by_key(|p| p.test_mode)
                .ok_or_else(|| {
                    PaymentsError::invalid(
                        "payment_method",
                        "the account has no profile for this method",
                    )
                })?
        }
    };
    if checked
        .payment_method
        .as_deref()
        .is_some_and(|m| m != profile.payment_method.as_str())
    {
        return Err(PaymentsError::invalid(
            "payment_method",
            "does not match the profile's method",
        ));
    }
    Ok(profile)
}
