//! User use cases: creating one, giving one a password, and checking one at sign-in.

use coffer_model::validation::FieldError;
use coffer_store::Store;
use uuid::Uuid;

use super::domain::{UserInput, UserView, check_password, email_key};
use super::password;
use super::store::{self as users, UserRow};
use crate::error::CommandError;
use crate::organisations;
use crate::writes::Writes;

impl From<&UserRow> for UserView {
    fn from(row: &UserRow) -> Self {
        UserView {
            uuid: row.uuid.clone(),
            email: row.email.clone(),
            name: row.name.clone(),
            organisation_uuid: row.organisation_uuid.clone(),
            locale: row.locale.clone(),
            has_password: row.password_hash.is_some(),
            created: row.created,
        }
    }
}

/// Argon2 in its turn (password.rs).
pub(crate) async fn hashed(password: String) -> Result<String, CommandError> {
    password::hash_in_turn(password)
        .await
        .map_err(|_| CommandError::Busy)?
        .map_err(|_| CommandError::Random)
}

pub(crate) async fn create(writes: &Writes, input: UserInput) -> Result<UserView, CommandError> {
    let valid = input.validate().map_err(CommandError::invalid_all)?;
    organisations::commands::existing(&writes.store, valid.organisation_uuid).await?;
    let password_hash = match valid.password {
        Some(p) => Some(hashed(p).await?),
        None => None,
    };
    let now = writes.clock.unix();
    let row = UserRow {
        uuid: Uuid::new_v4().to_string(),
        email_key: email_key(valid.email.as_str()),
        email: valid.email.into_string(),
        name: valid.name,
        organisation_uuid: valid.organisation_uuid.to_string(),
        locale: valid.locale,
        password_hash,
        created: now,
        updated: now,
    };
    let stored = row.clone();
    if !writes
        .store
        .query(move |c| users::insert(c, &stored))
        .await?
    {
        return Err(CommandError::invalid_all(vec![FieldError::not_valid(
            "email",
            "a user with this e-mail address exists already",
        )]));
    }
    Ok(UserView::from(&row))
}

pub(crate) async fn set_password(
    writes: &Writes,
    email: &str,
    password: String,
) -> Result<UserView, CommandError> {
    check_password("password", &password).map_err(|e| CommandError::invalid_all(vec![e]))?;
    let hash = hashed(password).await?;
    let key = email_key(email);
    let now = writes.clock.unix();
    let found = writes
        .store
        .query(move |c| {
            if users::set_password(c, &key, &hash, now)? {
                users::by_email_key(c, &key)
            } else {
                Ok(None)
            }
        })
        .await?;
    found
        .as_ref()
        .map(UserView::from)
        .ok_or(CommandError::not_found("user"))
}

/// The user whose address and password these are, if any. An unknown address and a
/// user without a password cost the same as a wrong password (password.rs). `Busy` when
/// no turn to check came in time.
pub(crate) async fn authenticate(
    store: &Store,
    email: &str,
    given: String,
) -> Result<Option<UserRow>, CommandError> {
    if given.len() > super::domain::MAX_PASSWORD_BYTES {
        return Ok(None);
    }
    let key = email_key(email);
    let user = store.query(move |c| users::by_email_key(c, &key)).await?;
    let stored = user.as_ref().and_then(|u| u.password_hash.clone());
    let ok = password::verify_in_turn(given, stored)
        .await
        .map_err(|_| CommandError::Busy)?;
    Ok(user.filter(|_| ok))
}

/// Why a sign-in's password was not checked.
pub(crate) enum Unchecked {
    /// The (address, network) or the network must wait this many seconds.
    Wait(i64),
    /// Not the user's failure: no turn to hash came, or the database failed.
    Failed(CommandError),
}

/// A sign-in with its throttle around it (sso/throttle.rs), for the login page and the
/// onboarding service's credential check alike. The try is counted as a failure before
/// the password is checked, so guesses sent in parallel are all counted; a success, or a
/// try that was never checked, takes its count back.
pub(crate) async fn sign_in(
    state: &crate::state::IdentityState,
    email: &str,
    password: String,
    network: std::net::IpAddr,
) -> Result<Option<UserRow>, Unchecked> {
    let key = email_key(email);
    state
        .sign_ins
        .attempt(&key, network)
        .map_err(Unchecked::Wait)?;
    match authenticate(&state.store, email, password).await {
        Ok(Some(user)) => {
            state.sign_ins.succeeded(&key, network);
            Ok(Some(user))
        }
        Ok(None) => Ok(None),
        Err(e) => {
            state.sign_ins.not_checked(&key, network);
            Err(Unchecked::Failed(e))
        }
    }
}
