//! Payment method profiles as stored, listed alike by profiles (their list route) and by
//! payments and payment sources (the profile a request names, shared/profile_choice.rs).

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use super::profile::Profile;
use crate::schema::payment_method_profiles::dsl as p;

/// Profiles of one account, or of every account of `organisations` (all when `None`).
pub fn list(
    db: &mut Db<'_>,
    account: Option<&str>,
    organisations: Option<&[String]>,
) -> QueryResult<Vec<Profile>> {
    db_run!(db: {
        let mut q = p::payment_method_profiles.select(Profile::as_select()).into_boxed();
        if let Some(account) = account {
            q = q.filter(p::account_uuid.eq(account));
        }
        if let Some(list) = organisations {
            q = q.filter(p::organisation_uuid.eq_any(list));
        }
        q.order((p::account_uuid.asc(), p::payment_method.asc(), p::name.asc())).load(db)
    })
}

/// The account's profile of that name (how payments and sources record theirs).
pub fn find_by_name(db: &mut Db<'_>, account: &str, name: &str) -> QueryResult<Option<Profile>> {
    db_run!(db: {
        p::payment_method_profiles
            .filter(p::account_uuid.eq(account))
            .filter(p::name.eq(name))
            .select(Profile::as_select())
            .first(db)
            .optional()
    })
}
