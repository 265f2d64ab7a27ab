//! Payment method profiles' own queries: a new account's test profiles, and the profiles an
//! operator sets. Profiles are listed in shared/profile_store.rs (payments and payment
//! sources choose theirs from the list).

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::test_profile_name;
use crate::schema::payment_method_profiles::dsl as p;
use crate::shared::connector::TEST_PROVIDER;
use crate::shared::method::PaymentMethod;
use crate::shared::profile::Profile;

/// Gives a new account its test profiles, each the default for its method. Repeating it
/// (a redelivered event) adds nothing.
pub fn create_test_profiles(
    db: &mut Db<'_>,
    account: &str,
    organisation: &str,
    now: i64,
) -> QueryResult<()> {
    let rows: Vec<Profile> = PaymentMethod::OFFERED
        .into_iter()
        .map(|method| Profile {
            uuid: uuid::Uuid::new_v4().to_string(),
            account_uuid: account.to_owned(),
            organisation_uuid: organisation.to_owned(),
            name: test_profile_name(method),
            payment_method: method,
            test_mode: true,
            provider: TEST_PROVIDER.to_owned(),
            is_default: true,
            created: now,
            connector_account_uuid: None,
        })
        .collect();
    // One statement per row: diesel's SQLite backend has no multi-row ON CONFLICT.
    for row in &rows {
        db_run!(db: {
            diesel::insert_into(p::payment_method_profiles)
                .values(row)
                .on_conflict((p::account_uuid, p::name))
                .do_nothing()
                .execute(db)
        })?;
    }
    Ok(())
}

/// Whether the account has a default profile for the method in that mode.
pub fn has_default(
    db: &mut Db<'_>,
    account: &str,
    method: PaymentMethod,
    test_mode: bool,
) -> QueryResult<bool> {
    let found: i64 = db_run!(db: {
        p::payment_method_profiles
            .filter(p::account_uuid.eq(account))
            .filter(p::payment_method.eq(method))
            .filter(p::test_mode.eq(test_mode))
            .filter(p::is_default.eq(true))
            .count()
            .get_result(db)
    })?;
    Ok(found > 0)
}

/// No profile of the method and mode is the default any more (one is made so next).
pub fn clear_defaults(
    db: &mut Db<'_>,
    account: &str,
    method: PaymentMethod,
    test_mode: bool,
) -> QueryResult<()> {
    db_run!(db: {
        diesel::update(
            p::payment_method_profiles
                .filter(p::account_uuid.eq(account))
                .filter(p::payment_method.eq(method))
                .filter(p::test_mode.eq(test_mode)),
        )
        .set(p::is_default.eq(false))
        .execute(db)
    })?;
    Ok(())
}

/// Writes the profile, made or changed.
pub fn save(db: &mut Db<'_>, profile: &Profile) -> QueryResult<()> {
    db_run!(db: {
        diesel::insert_into(p::payment_method_profiles)
            .values(profile)
            .on_conflict(p::uuid)
            .do_update()
            .set((
                p::provider.eq(&profile.provider),
                p::connector_account_uuid.eq(&profile.connector_account_uuid),
                p::is_default.eq(profile.is_default),
            ))
            .execute(db)
    })?;
    Ok(())
}
