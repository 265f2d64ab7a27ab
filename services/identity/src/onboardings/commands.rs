//! Onboarding an organisation: everything made in one transaction with its events, or
//! nothing. Asked again with the same organisation uuid, it answers what was made and
//! makes nothing more, so the onboarding service may retry after any failure.

use uuid::Uuid;

use super::domain::{Onboarded, OnboardedAccount, OnboardingRequest, ValidOnboarding};
use crate::accounts::events as account_events;
use crate::accounts::store::{self as accounts, BillingRow};
use crate::attachments::domain::Owner;
use crate::attachments::store::{self as attachments, AddressRow};
use crate::directory::{AccountRow, OrganisationRow};
use crate::error::CommandError;
use crate::organisations::events as organisation_events;
use crate::organisations::store as organisations;
use crate::users::domain::email_key;
use crate::users::store::{self as users, UserRow};
use crate::writes::Writes;

/// What was made, and whether this call made it (false: it had been, and is answered
/// again).
pub(crate) async fn onboard(
    writes: &Writes,
    request: OnboardingRequest,
) -> Result<(Onboarded, bool), CommandError> {
    let labels: Vec<OnboardedAccount> = request.accounts.clone();
    let valid = request.validate().map_err(CommandError::invalid_all)?;
    if let Some(done) = already(writes, &valid, &labels).await? {
        return Ok((done, false));
    }
    let password_hash = match valid.user.password.clone() {
        Some(p) => Some(crate::users::commands::hashed(p).await?),
        None => None,
    };
    let now = writes.clock.unix();
    let rows = Rows::of(&valid, password_hash, now);
    let made = Onboarded {
        organisation_uuid: valid.organisation_uuid,
        accounts: labels.clone(),
        user_uuid: valid.user_uuid,
    };
    let email_taken = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let taken = std::sync::Arc::clone(&email_taken);
    let outcome = writes
        .announcing(move |tx, outbox| {
            organisations::insert(tx, &rows.organisation)?;
            for address in &rows.addresses {
                attachments::insert_address(tx, address)?;
            }
            for account in &rows.accounts {
                accounts::insert(tx, account)?;
            }
            for billing in &rows.billing {
                accounts::upsert_billing(tx, billing)?;
            }
            if !users::insert(tx, &rows.user)? {
                taken.store(true, std::sync::atomic::Ordering::SeqCst);
                return Err(diesel::result::Error::RollbackTransaction);
            }
            let mut events = vec![organisation_events::created(
                tx,
                outbox,
                &rows.organisation.uuid,
            )?];
            for account in &rows.accounts {
                events.push(account_events::created(tx, outbox, &account.uuid)?);
            }
            Ok(events)
        })
        .await;
    match outcome {
        Ok(()) => Ok((made, true)),
        Err(e) => {
            // Two calls for the same onboarding at once: the one that lost made nothing
            // (its transaction hit the first one's rows) and answers what the first made.
            if let Some(done) = already(writes, &valid, &labels).await? {
                return Ok((done, false));
            }
            if email_taken.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(CommandError::conflict(
                    "a user with this e-mail address exists already",
                ));
            }
            Err(e.into())
        }
    }
}

/// The onboarding as made before, when its organisation exists: then its user must be
/// the one asked for, or the request is not the same one.
async fn already(
    writes: &Writes,
    valid: &ValidOnboarding,
    labels: &[OnboardedAccount],
) -> Result<Option<Onboarded>, CommandError> {
    let organisation = valid.organisation_uuid.to_string();
    let user = valid.user_uuid.to_string();
    let (found, user) = writes
        .store
        .query(move |c| {
            Ok((
                organisations::find(c, &organisation)?,
                users::find(c, &user)?,
            ))
        })
        .await?;
    match (found, user) {
        (None, _) => Ok(None),
        (Some(_), Some(u)) if u.organisation_uuid == valid.organisation_uuid.to_string() => {
            Ok(Some(Onboarded {
                organisation_uuid: valid.organisation_uuid,
                accounts: labels.to_vec(),
                user_uuid: valid.user_uuid,
            }))
        }
        (Some(_), _) => Err(CommandError::conflict(
            "this organisation exists already, with another user",
        )),
    }
}

/// The rows of one onboarding.
struct Rows {
    organisation: OrganisationRow,
    addresses: Vec<AddressRow>,
    accounts: Vec<AccountRow>,
    billing: Vec<BillingRow>,
    user: UserRow,
}

impl Rows {
    fn of(v: &ValidOnboarding, password_hash: Option<String>, now: i64) -> Self {
        let org = v.organisation_uuid.to_string();
        let accounts: Vec<AccountRow> = v
            .accounts
            .iter()
            .map(|(uuid, name)| AccountRow {
                uuid: uuid.to_string(),
                organisation_uuid: org.clone(),
                name: name.clone(),
                created: now,
                active: true,
            })
            .collect();
        let billing = v
            .billing
            .iter()
            .flat_map(|b| accounts.iter().map(move |a| BillingRow::new(&a.uuid, b)))
            .collect();
        Rows {
            organisation: OrganisationRow {
                uuid: org.clone(),
                name: v.organisation.name.clone(),
                created: now,
                approval_status: v.organisation.approval_status,
                active: true,
                merchant_category_code: v.organisation.merchant_category_code.clone(),
                locale: v.organisation.locale.clone(),
            },
            addresses: [&v.main_address, &v.billing_address]
                .map(|a| AddressRow::new(a.clone(), &Owner::Organisation(org.clone()), now))
                .to_vec(),
            accounts,
            billing,
            user: UserRow {
                uuid: v.user_uuid.to_string(),
                email_key: email_key(v.user.email.as_str()),
                email: v.user.email.as_str().to_owned(),
                name: v.user.name.clone(),
                organisation_uuid: org,
                locale: v.user.locale.clone(),
                password_hash,
                created: now,
                updated: now,
            },
        }
    }
}

/// The user these credentials belong to; failures slowed per (address, network) and per
/// network, with the login page's counts.
pub(crate) async fn check_credentials(
    state: &crate::state::IdentityState,
    check: super::domain::CredentialsCheck,
) -> Result<super::domain::KnownUser, CommandError> {
    use crate::users::commands::{Unchecked, sign_in};
    use coffer_http::ClientAddress;
    let network = ClientAddress(check.source).network();
    let user = match sign_in(state, &check.email, check.password, network).await {
        Ok(Some(user)) => user,
        Ok(None) => return Err(CommandError::WrongCredentials),
        Err(Unchecked::Wait(wait)) => return Err(CommandError::SignInsThrottled(wait)),
        Err(Unchecked::Failed(e)) => return Err(e),
    };
    let parse = |raw: &str| raw.parse::<Uuid>().map_err(CommandError::internal);
    Ok(super::domain::KnownUser {
        user_uuid: parse(&user.uuid)?,
        organisation_uuid: parse(&user.organisation_uuid)?,
    })
}

pub(crate) async fn email_exists(
    state: &crate::state::IdentityState,
    email: &str,
) -> Result<bool, CommandError> {
    let key = email_key(email);
    Ok(state
        .store
        .query(move |c| users::by_email_key(c, &key))
        .await?
        .is_some())
}
