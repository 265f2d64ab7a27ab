//! What makes, changes, shows or removes an event subscription: one use case per function.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_http::idempotency::Once;
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{PagingLimits, PagingQuery};
use coffer_store::Db;
use serde_json::{Value, json};
use uuid::Uuid;

use super::domain::{Fields, Subscription, bound, request};
use super::store::{self, Scope};
use crate::endpoints;
use crate::error::NotificationsError;
use crate::state::NotificationsState;

/// A page asked for with `size` is 1,000 subscriptions at most. Without it the list is
/// whole: an organisation's subscriptions are bounded (bound.rs), and a client that finds
/// its subscription by listing would make it again if the list were cut.
pub const LIMITS: PagingLimits = PagingLimits::new(1_000, 1_000);

fn uuid_of(raw: &str) -> Result<Uuid, NotificationsError> {
    raw.parse().map_err(NotificationsError::internal)
}

/// The endpoint must be one of the subscription's organisation's, and so the account.
fn check_references(tx: &mut Db<'_>, x: &Subscription) -> Result<(), NotificationsError> {
    match endpoints::store::organisation_of(tx, &x.action_configuration_uuid)? {
        Some(org) if org == x.organisation_uuid => {}
        _ => return Err(NotificationsError::not_found("Webhook endpoint")),
    }
    if let Some(account) = &x.account_uuid {
        match coffer_directory::account_organisation(tx, account)? {
            None => return Err(NotificationsError::not_found("Account")),
            Some(org) if org != x.organisation_uuid => {
                return Err(NotificationsError::invalid(
                    "account_uuid",
                    "is not an account of the organisation",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Applies a body's fields; with `replace`, what it leaves out is cleared.
fn apply(x: &mut Subscription, f: Fields, replace: bool) -> Result<(), NotificationsError> {
    if f.organisation_uuid
        .as_ref()
        .is_some_and(|o| *o != x.organisation_uuid)
    {
        return Err(NotificationsError::invalid(
            "organisation_uuid",
            "cannot be changed",
        ));
    }
    match f.account_uuid {
        Some(a) => x.account_uuid = a,
        None if replace => x.account_uuid = None,
        None => {}
    }
    match f.filter {
        Some(filter) => x.filter = filter,
        None if replace => x.filter = None,
        None => {}
    }
    if let Some(endpoint) = f.action_configuration_uuid {
        x.action_configuration_uuid = endpoint;
    }
    if let Some((name, key)) = f.event {
        x.event_name = name;
        x.event_key = key;
    }
    if let Some(enabled) = f.enabled {
        x.enabled = enabled;
    }
    Ok(())
}

pub(crate) struct ListQuery<'a> {
    pub organisation: Option<&'a str>,
    pub account: Option<&'a str>,
    pub endpoint: Option<&'a str>,
    pub paging: &'a PagingQuery,
}

pub(crate) async fn list(
    state: &NotificationsState,
    caller: &Caller,
    q: ListQuery<'_>,
) -> Result<Vec<Subscription>, NotificationsError> {
    let mut errors = Vec::new();
    // An empty value (`account_uuid=`) is left out, as clients written for RaiseNow send it.
    let mut id = |property: &str, raw: Option<&str>| {
        raw.filter(|r| !r.is_empty())
            .and_then(|r| match parse_uuid(property, r) {
                Ok(u) => Some(u),
                Err(e) => {
                    errors.push(e);
                    None
                }
            })
    };
    let organisation = id("organisation_uuid", q.organisation);
    let account = id("account_uuid", q.account);
    let endpoint = id("webhook_configuration_uuid", q.endpoint);
    // Left out (or empty), the token's one organisation: a list is of one (docs/webhooks.md).
    let organisation = match organisation {
        Some(named) => Some(named),
        None if q.organisation.is_some_and(|r| !r.is_empty()) => None,
        None => caller
            .sole_organisation_or_named()
            .map_err(|e| errors.push(e))
            .ok(),
    };
    let window = q.paging.resolve(LIMITS).map_err(|e| errors.extend(e)).ok();
    let Some(window) = window.filter(|_| errors.is_empty()) else {
        return Err(NotificationsError::invalid_all(errors));
    };
    let limit = q.paging.size.is_some().then(|| window.limit());
    let scope = Scope {
        organisations: caller.organisations_listed(organisation)?,
        account: account.map(|a| a.to_string()),
        endpoint: endpoint.map(|e| e.to_string()),
    };
    Ok(state
        .store
        .query(move |db| store::list(db, &scope, window.offset(), limit))
        .await?)
}

pub(crate) async fn create(
    state: &NotificationsState,
    caller: &Caller,
    once: Once,
    body: &Value,
) -> Result<HttpResponse, NotificationsError> {
    let f = request::read(body).map_err(NotificationsError::invalid_all)?;
    request::require_whole(&f).map_err(NotificationsError::invalid_all)?;
    let endpoint = f.action_configuration_uuid.clone().unwrap_or_default();
    let lookup = endpoint.clone();
    let endpoint_org = state
        .store
        .query(move |db| endpoints::store::organisation_of(db, &lookup))
        .await?;
    // The organisation named, or the endpoint's; either way the caller's.
    let organisation = match (&f.organisation_uuid, endpoint_org) {
        (Some(named), _) => named.clone(),
        (None, Some(org)) => org,
        (None, None) => return Err(NotificationsError::not_found("Webhook endpoint")),
    };
    caller.require_organisation(uuid_of(&organisation)?)?;
    let mut x = Subscription {
        uuid: Uuid::new_v4().to_string(),
        organisation_uuid: organisation,
        account_uuid: None,
        action_configuration_uuid: endpoint,
        event_name: String::new(),
        event_key: String::new(),
        filter: None,
        enabled: true,
        created: state.clock.unix(),
    };
    apply(&mut x, f, false)?;
    let effect = move |tx: &mut Db<'_>| {
        check_references(tx, &x)?;
        // Creates at once are counted one after another (the lock endpoints take too).
        endpoints::store::lock_organisation(tx, &x.organisation_uuid)?;
        bound::one_more(store::count_of(tx, &x.organisation_uuid)?)
            .map_err(|e| NotificationsError::invalid_all(vec![e]))?;
        store::insert(tx, &x)?;
        Ok::<_, NotificationsError>((StatusCode::CREATED, json!(x.view())))
    };
    Ok(once.run(&state.store, state.clock.as_ref(), effect).await?)
}

/// A subscription the caller may see.
pub(crate) async fn show(
    state: &NotificationsState,
    caller: &Caller,
    subscription: Uuid,
) -> Result<Subscription, NotificationsError> {
    let id = subscription.to_string();
    let x = state
        .store
        .query(move |db| store::find(db, &id))
        .await?
        .ok_or_else(|| NotificationsError::not_found("Event subscription"))?;
    caller.require_organisation(uuid_of(&x.organisation_uuid)?)?;
    Ok(x)
}

/// Replace (`replace`) or update a subscription.
pub(crate) async fn change(
    state: &NotificationsState,
    caller: &Caller,
    uuid: Uuid,
    body: &Value,
    replace: bool,
) -> Result<Subscription, NotificationsError> {
    let f = request::read(body).map_err(NotificationsError::invalid_all)?;
    if replace {
        request::require_whole(&f).map_err(NotificationsError::invalid_all)?;
    }
    let mut x = show(state, caller, uuid).await?;
    apply(&mut x, f, replace)?;
    let now = state.clock.unix();
    let saved = x.clone();
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                check_references(tx, &saved)?;
                store::update(tx, &saved, now)?;
                Ok::<_, NotificationsError>(())
            })
        })
        .await?;
    Ok(x)
}

pub(crate) async fn delete(
    state: &NotificationsState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<(), NotificationsError> {
    let x = show(state, caller, uuid).await?;
    state
        .store
        .query(move |db| store::delete(db, &x.uuid))
        .await?;
    Ok(())
}
