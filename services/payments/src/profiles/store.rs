//! Payment method profiles' own query: a new account's test profiles. Profiles are listed
//! in shared/profile_store.rs (payments and payment sources choose theirs from the list).

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
