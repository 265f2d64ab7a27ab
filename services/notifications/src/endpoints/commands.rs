//! What makes, changes, shows or removes a webhook endpoint: one use case per function.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_http::idempotency::Once;
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{PagingLimits, PagingQuery};
use coffer_secrets::Secrets;
use coffer_store::resealing::{self, PassError};
use coffer_store::{Db, Store};
use serde_json::{Value, json};
use uuid::Uuid;

use super::domain::{Endpoint, Fields, bound, key, request};
use super::store;
use crate::deliveries::connect;
use crate::error::NotificationsError;
use crate::state::NotificationsState;

/// Seals again, at start, what notifications keeps sealed under a master key that is no
/// longer current: endpoints' signing keys and passwords, and the answers stored under
/// Idempotency-Keys (a create's shows the signing key). A signing key or password no
/// configured key opens stops the start and names its endpoint: no delivery to it could be
/// signed, and a key left out of `secrets.keys` is the likely cause.
pub(crate) async fn seal_at_start(store: &Store, secrets: &Secrets) -> Result<(), PassError> {
    resealing::reseal::<store::SealedColumns>(store, secrets).await?;
    coffer_http::idempotency::reseal_answers(store, secrets).await?;
    Ok(())
}

/// A page asked for with `size` is 1,000 endpoints at most (`from` alone, like no paging
/// at all, answers every endpoint from there: a list is never cut unasked).
pub const LIMITS: PagingLimits = PagingLimits::new(1_000, 1_000);

fn uuid_of(raw: &str) -> Result<Uuid, NotificationsError> {
    raw.parse().map_err(NotificationsError::internal)
}

fn fields(body: &Value) -> Result<Fields, NotificationsError> {
    request::read(body).map_err(NotificationsError::invalid_all)
}

/// The endpoint's account must be one of its organisation's, as the directory knows it.
fn check_account(tx: &mut Db<'_>, e: &Endpoint) -> Result<(), NotificationsError> {
    let Some(account) = &e.account_uuid else {
        return Ok(());
    };
    match coffer_directory::account_organisation(tx, account)? {
        None => Err(NotificationsError::not_found("Account")),
        Some(org) if org != e.organisation_uuid => Err(NotificationsError::invalid(
            "account_uuid",
            "is not an account of the organisation",
        )),
        Some(_) => Ok(()),
    }
}

/// An endpoint that names an address itself must name one deliveries may reach (a name is
/// checked each time a delivery resolves it).
fn check_reachable(state: &NotificationsState, e: &Endpoint) -> Result<(), NotificationsError> {
    let url = url::Url::parse(&e.endpoint).map_err(NotificationsError::internal)?;
    connect::check_url(&url, &state.addresses).map_err(|_| {
        NotificationsError::invalid(
            "endpoint",
            "must not be a private, loopback or reserved address",
        )
    })
}

/// Applies a body's fields; with `replace`, what it leaves out is cleared (but the key,
/// which is kept unless a new one is given).
fn apply(e: &mut Endpoint, f: Fields, replace: bool, now: i64) -> Result<(), NotificationsError> {
    if f.organisation_uuid
        .as_ref()
        .is_some_and(|o| *o != e.organisation_uuid)
    {
        return Err(NotificationsError::invalid(
            "organisation_uuid",
            "cannot be changed",
        ));
    }
    let pick = |given: Option<Option<String>>, kept: &mut Option<String>| match given {
        Some(v) => *kept = v,
        None if replace => *kept = None,
        None => {}
    };
    pick(f.account_uuid, &mut e.account_uuid);
    pick(f.alias, &mut e.alias);
    pick(f.username, &mut e.username);
    pick(f.password, &mut e.password);
    if let Some(url) = f.endpoint {
        e.endpoint = url;
    }
    if let Some(k) = f.hmac_key {
        e.rotate(k, now);
    }
    if let Some(enabled) = f.enabled {
        e.enabled = enabled;
        if enabled {
            e.disabled_reason = None;
        }
    }
    Ok(())
}

/// The caller's endpoints, oldest first: every one of them, or the page `paging` asks for.
/// An organisation's are bounded (`max_endpoints_per_organisation`), so all of them fit in
/// one answer; a client that finds its endpoint by listing must see every one, or it
/// makes it again.
pub(crate) async fn list(
    state: &NotificationsState,
    caller: &Caller,
    organisation: Option<&str>,
    account: Option<&str>,
    paging: &PagingQuery,
) -> Result<Vec<Endpoint>, NotificationsError> {
    let mut errors = Vec::new();
    let window = paging.resolve(LIMITS).map_err(|e| errors.extend(e)).ok();
    // An empty value (`account_uuid=`, as the n8n RaiseNow node sends it) is left out.
    let (organisation, account) = (
        organisation.filter(|raw| !raw.is_empty()),
        account.filter(|raw| !raw.is_empty()),
    );
    let organisation = match organisation {
        Some(raw) => parse_uuid("organisation_uuid", raw)
            .map_err(|e| errors.push(e))
            .ok(),
        None => caller
            .sole_organisation_or_named()
            .map_err(|e| errors.push(e))
            .ok(),
    };
    let account = account
        .map(|raw| parse_uuid("account_uuid", raw))
        .transpose()
        .map_err(|e| errors.push(e))
        .ok()
        .flatten()
        .map(|a| a.to_string());
    let Some(window) = window.filter(|_| errors.is_empty()) else {
        return Err(NotificationsError::invalid_all(errors));
    };
    let limit = paging.size.is_some().then(|| window.limit());
    let scope = caller.organisations_listed(organisation)?;
    let secrets = state.secrets.clone();
    Ok(state
        .store
        .query(move |db| {
            store::list(
                db,
                &secrets,
                scope.as_deref(),
                account.as_deref(),
                window.offset(),
                limit,
            )
        })
        .await?)
}

/// Makes an endpoint; with `prevent_duplicates`, an organisation's existing endpoint for
/// the same URL is answered instead (200 rather than 201). Under an Idempotency-Key the
/// first answer is replayed; it is kept sealed, as it shows the signing key and password.
pub(crate) async fn create(
    state: &NotificationsState,
    caller: &Caller,
    once: Once,
    body: &Value,
    prevent_duplicates: bool,
) -> Result<HttpResponse, NotificationsError> {
    let mut f = fields(body)?;
    // SPEC.md has organisation_uuid optional: left out, it is the caller's organisation
    // when its token reaches exactly one (a platform or partner caller must name it).
    let mut missing = Vec::new();
    if f.organisation_uuid.is_none() {
        match caller.sole_organisation_or_named() {
            Ok(sole) => f.organisation_uuid = Some(sole.to_string()),
            Err(e) => missing.push(e),
        }
    }
    missing.extend(request::require_endpoint(&f).err().unwrap_or_default());
    if !missing.is_empty() {
        return Err(NotificationsError::invalid_all(missing));
    }
    let organisation = f.organisation_uuid.clone().unwrap_or_default();
    caller.require_organisation(uuid_of(&organisation)?)?;
    let now = state.clock.unix();
    let generated = key::generate().map_err(|_| NotificationsError::internal("no random key"))?;
    let mut endpoint = Endpoint {
        uuid: Uuid::new_v4().to_string(),
        organisation_uuid: organisation,
        account_uuid: None,
        alias: None,
        endpoint: String::new(),
        username: None,
        password: None,
        hmac_key: f.hmac_key.clone().unwrap_or(generated),
        previous_hmac_key: None,
        enabled: true,
        disabled_reason: None,
        created: now,
    };
    apply(
        &mut endpoint,
        Fields {
            hmac_key: None,
            ..f
        },
        false,
        now,
    )?;
    check_reachable(state, &endpoint)?;
    let secrets = state.secrets.clone();
    let partner = caller.partner().map(|p| p.to_string());
    let most = state.max_endpoints_per_organisation;
    let effect = move |tx: &mut Db<'_>| {
        let organisation = endpoint.organisation_uuid.as_str();
        store::lock_organisation(tx, organisation)?;
        if prevent_duplicates
            && let Some(existing) =
                store::find_by_url(tx, &secrets, organisation, &endpoint.endpoint)?
        {
            return Ok::<_, NotificationsError>((StatusCode::OK, json!(existing.view())));
        }
        bound::one_more(store::count_of(tx, organisation)?, most)
            .map_err(|e| NotificationsError::invalid_all(vec![e]))?;
        check_account(tx, &endpoint)?;
        store::insert(tx, &secrets, &endpoint)?;
        if let Some(partner) = &partner {
            store::set_partner(tx, &endpoint.uuid, partner)?;
        }
        Ok((StatusCode::CREATED, json!(endpoint.view())))
    };
    let (store, clock) = (&state.store, state.clock.as_ref());
    Ok(once
        .run_sealed(store, clock, &state.secrets, effect)
        .await?)
}

/// An endpoint the caller may see.
pub(crate) async fn show(
    state: &NotificationsState,
    caller: &Caller,
    endpoint: Uuid,
) -> Result<Endpoint, NotificationsError> {
    let id = endpoint.to_string();
    let secrets = state.secrets.clone();
    let endpoint = state
        .store
        .query(move |db| store::find(db, &secrets, &id))
        .await?
        .ok_or_else(|| NotificationsError::not_found("Webhook endpoint"))?;
    caller.require_organisation(uuid_of(&endpoint.organisation_uuid)?)?;
    Ok(endpoint)
}

/// Replace (`replace`) or update an endpoint.
pub(crate) async fn change(
    state: &NotificationsState,
    caller: &Caller,
    uuid: Uuid,
    body: &Value,
    replace: bool,
) -> Result<Endpoint, NotificationsError> {
    let f = fields(body)?;
    if replace {
        request::require_endpoint(&f).map_err(NotificationsError::invalid_all)?;
    }
    let mut endpoint = show(state, caller, uuid).await?;
    let now = state.clock.unix();
    apply(&mut endpoint, f, replace, now)?;
    check_reachable(state, &endpoint)?;
    let (saved, secrets) = (endpoint.clone(), state.secrets.clone());
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                check_account(tx, &saved)?;
                store::update(tx, &secrets, &saved, now)?;
                Ok::<_, NotificationsError>(())
            })
        })
        .await?;
    Ok(endpoint)
}

pub(crate) async fn delete(
    state: &NotificationsState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<(), NotificationsError> {
    let endpoint = show(state, caller, uuid).await?;
    // Its subscriptions go with it: they could deliver nowhere.
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                crate::subscriptions::store::delete_of_endpoint(tx, &endpoint.uuid)?;
                store::delete(tx, &endpoint.uuid)?;
                Ok::<_, NotificationsError>(())
            })
        })
        .await
}
