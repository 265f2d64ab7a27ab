//! Setting a profile served by a connector account (`coffer admin profile set`): made on
//! first use of its name, made its mode's default after if asked, with at most one default
//! per method and mode, in one transaction.

use coffer_directory::account_organisation;
use coffer_store::Store;

use super::domain::{self, ProfileSetting, Serving};
use super::store;
use crate::error::PaymentsError;
use crate::shared::profile::Profile;
use crate::shared::profile_store;

/// Sets the profile `setting.name` of `setting.account_uuid`, served by `serving`.
pub async fn set(
    db: &Store,
    now: i64,
    setting: ProfileSetting,
    serving: Serving,
) -> Result<Profile, PaymentsError> {
    let method = domain::check(&setting, &serving).map_err(PaymentsError::invalid_all)?;
    db.run(move |db| {
        db.write_tx(|tx| -> Result<Profile, PaymentsError> {
            let organisation = account_organisation(tx, &setting.account_uuid)?
                .ok_or_else(|| PaymentsError::not_found("Account"))?;
            let existing = profile_store::find_by_name(tx, &setting.account_uuid, &setting.name)?;
            let test_mode = !serving.live;
            let profile = match existing {
                Some(was) if was.connector_account_uuid.is_none() => {
                    return Err(PaymentsError::conflict(
                        "the test provider's profiles keep their provider",
                    ));
                }
                // Its payments name it by name, and are refunded and settled through its
                // connector account: one that took another account, method or mode would
                // send them where they were not made. A key is rotated on the connector
                // account instead.
                Some(was) if !domain::same_serving(&was, method, &serving) => {
                    return Err(PaymentsError::conflict(
                        "a profile keeps its connector account and method; set one of another name",
                    ));
                }
                Some(was) => Profile {
                    is_default: was.is_default || setting.default,
                    ..was
                },
                None => Profile {
                    uuid: uuid::Uuid::new_v4().to_string(),
                    account_uuid: setting.account_uuid.clone(),
                    organisation_uuid: organisation,
                    name: setting.name.clone(),
                    payment_method: method,
                    test_mode,
                    provider: serving.provider.to_owned(),
                    // The first test profile of its method is test mode's default; a live
                    // one is the default only when asked, since requests for the default
                    // then charge real money.
                    is_default: setting.default
                        || (test_mode
                            && !store::has_default(tx, &setting.account_uuid, method, true)?),
                    created: now,
                    connector_account_uuid: Some(serving.uuid.clone()),
                },
            };
            if setting.default {
                store::clear_defaults(tx, &profile.account_uuid, method, test_mode)?;
            }
            store::save(tx, &profile)?;
            Ok(profile)
        })
    })
    .await
}
