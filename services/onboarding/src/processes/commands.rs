//! Process use cases. Creating one (the partner, once per Idempotency-Key), reading it (by
//! uuid for the partner, by token for the person it was made for), executing it (a new
//! organisation in identity), connecting it (the person's existing organisation), and the
//! e-mail check.
//!
//! Executing calls identity, so it never runs inside a transaction: it keeps the uuids it
//! will make first, then asks identity (safe to ask again: same uuids, same answer), then
//! completes the process with its integration and events in one transaction.
//!
//! The start seals the tokens of rows written before tokens were sealed, and seals again
//! what a master key no longer current sealed ([`seal_at_start`]).

use std::net::IpAddr;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_events::append;
use coffer_events::catalogue::{
    ONBOARDING_PROCESS_COMPLETED, ONBOARDING_PROCESS_CREATED, PARTNER_INTEGRATION_CREATED,
};
use coffer_http::idempotency::Once;
use coffer_secrets::Secrets;
use coffer_store::{Db, Store, resealing};
use serde_json::{Value, json};
use uuid::Uuid;

use super::domain::{self, Planned, ProcessStatus, check_create, new_token, token_digest};
use super::events;
use super::store::{self as processes, ProcessRow};
use super::views::{Form, ProcessRecord};
use crate::configurations::commands as configurations;
use crate::error::OnboardingError;
use crate::integrations::domain::IntegrationStatus;
use crate::integrations::events as integration_events;
use crate::integrations::store::{self as integrations, IntegrationRow};
use crate::state::OnboardingState;

/// Starts a process, once per Idempotency-Key: a repeat answers the first process.
///
/// The stored answer shows the token, so it is stored sealed under the master keys that
/// seal the process's own row (`run_sealed`): kept as it is, the idempotency table would
/// hold for a day, in clear, what the process's row keeps sealed.
pub(crate) async fn create(
    state: &OnboardingState,
    caller: &Caller,
    once: Once,
    body: Value,
) -> Result<HttpResponse, OnboardingError> {
    let Some(partner) = caller.partner() else {
        // Only a partner's client starts processes.
        return Err(OnboardingError::forbidden());
    };
    let request = check_create(&body).map_err(OnboardingError::invalid_all)?;
    let configuration = configurations::find(&state.store, &request.configuration_uuid.to_string())
        .await?
        .filter(|c| c.partner_uuid == partner.to_string())
        .ok_or(OnboardingError::not_found("onboarding configuration"))?;
    let token = new_token().ok_or_else(|| OnboardingError::internal("no randomness"))?;
    let now = state.clock.unix();
    let row = ProcessRow {
        uuid: Uuid::new_v4().to_string(),
        configuration_uuid: configuration.uuid,
        partner_uuid: partner.to_string(),
        token_sha256: token_digest(&token),
        token,
        external_id: request.external_id,
        status: ProcessStatus::Pending,
        initialisation_data: body.to_string(),
        planned: None,
        results: None,
        partner_integration_uuid: None,
        expires_at: now.saturating_add(state.process_ttl_secs),
        created: now,
        updated: now,
    };
    let answer = serde_json::to_value(ProcessRecord::of(&row, Form::Partner, now))
        .map_err(OnboardingError::internal)?;
    let (outbox, secrets) = (state.outbox.clone(), state.secrets.clone());
    let effect = move |tx: &mut Db<'_>| {
        processes::insert(tx, &secrets, &row)?;
        let created = events::of(&outbox, &ONBOARDING_PROCESS_CREATED, &row, now);
        append(tx, &[created], None)?;
        Ok::<_, OnboardingError>((StatusCode::CREATED, answer.clone()))
    };
    let (store, clock) = (&state.store, state.clock.as_ref());
    let response = once
        .run_sealed(store, clock, &state.secrets, effect)
        .await?;
    state.outbox.committed();
    Ok(response)
}

/// The partner's own process.
pub(crate) async fn by_uuid(
    state: &OnboardingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<ProcessRecord, OnboardingError> {
    let (uuid, secrets) = (uuid.to_string(), state.secrets.clone());
    let row = state
        .store
        .query(move |c| processes::find(c, &secrets, &uuid))
        .await?
        .filter(|row| {
            caller.is_platform()
                || caller
                    .partner()
                    .is_some_and(|p| p.to_string() == row.partner_uuid)
        })
        .ok_or(OnboardingError::not_found("onboarding process"))?;
    Ok(ProcessRecord::of(&row, Form::Partner, state.clock.unix()))
}

async fn find_by_token(
    state: &OnboardingState,
    token: &str,
) -> Result<ProcessRow, OnboardingError> {
    let (digest, secrets) = (token_digest(token), state.secrets.clone());
    state
        .store
        .query(move |c| processes::by_token(c, &secrets, &digest))
        .await?
        .ok_or(OnboardingError::not_found("onboarding process"))
}

pub(crate) async fn by_token(
    state: &OnboardingState,
    token: &str,
) -> Result<ProcessRecord, OnboardingError> {
    let row = find_by_token(state, token).await?;
    Ok(ProcessRecord::of(&row, Form::ByToken, state.clock.unix()))
}

/// 409 unless the process can still be executed or connected.
fn open(row: &ProcessRow, now: i64) -> Result<(), OnboardingError> {
    if row.status != ProcessStatus::Pending {
        return Err(OnboardingError::conflict(
            "this onboarding process is completed already",
        ));
    }
    if now >= row.expires_at {
        return Err(OnboardingError::conflict(
            "this onboarding process has expired",
        ));
    }
    Ok(())
}

/// Execute: a new organisation, its accounts and its user in identity.
pub(crate) async fn execute(
    state: &OnboardingState,
    token: &str,
    password: Option<String>,
) -> Result<ProcessRecord, OnboardingError> {
    let row = find_by_token(state, token).await?;
    open(&row, state.clock.unix())?;
    let configuration = configurations::find(&state.store, &row.configuration_uuid)
        .await?
        .ok_or(OnboardingError::not_found("onboarding configuration"))?;
    // The plan first, kept: a retry after any failure below asks for the same objects.
    let fresh = serde_json::to_string(&Planned::new(&configuration.labels()))
        .map_err(OnboardingError::internal)?;
    let (uuid, now) = (row.uuid.clone(), state.clock.unix());
    let kept = state
        .store
        .query(move |c| processes::plan(c, &uuid, &fresh, now))
        .await?;
    let plan: Planned = kept
        .as_deref()
        .and_then(|p| serde_json::from_str(p).ok())
        .ok_or_else(|| OnboardingError::internal("the process's plan cannot be read"))?;
    let data: Value = serde_json::from_str(&row.initialisation_data).unwrap_or(Value::Null);
    let request = domain::onboarding_request(
        &data,
        &plan,
        password.as_deref(),
        &configuration.default_locale,
    );
    // Outside any transaction: identity is another service.
    state
        .identity
        .onboard(request)
        .await
        .map_err(OnboardingError::Identity)?;
    let results = json!({
        "organisation": {"uuid": plan.organisation_uuid},
        "accounts": plan.accounts.iter().map(|(label, uuid)| (label.clone(), json!({"uuid": uuid}))).collect::<serde_json::Map<_, _>>(),
        "user": {"uuid": plan.user_uuid},
    });
    complete(state, row, plan.organisation_uuid, results).await
}

/// Connect: the organisation of an existing user, who proves who they are.
pub(crate) async fn connect(
    state: &OnboardingState,
    token: &str,
    credentials: Option<(String, String)>,
    source: IpAddr,
) -> Result<ProcessRecord, OnboardingError> {
    let row = find_by_token(state, token).await?;
    open(&row, state.clock.unix())?;
    let Some((email, password)) = credentials else {
        return Err(OnboardingError::Unauthorized);
    };
    let user = state
        .identity
        .check_credentials(email, password, source)
        .await
        .map_err(OnboardingError::Identity)?;
    let results = json!({
        "organisation": {"uuid": user.organisation_uuid},
        "accounts": {},
        "user": {"uuid": user.user_uuid},
    });
    complete(state, row, user.organisation_uuid, results).await
}

/// Completes the process with the integration it makes, in one transaction with both
/// events; 409 when another request completed it meanwhile.
async fn complete(
    state: &OnboardingState,
    row: ProcessRow,
    organisation: Uuid,
    results: Value,
) -> Result<ProcessRecord, OnboardingError> {
    let now = state.clock.unix();
    let integration = IntegrationRow {
        uuid: Uuid::new_v4().to_string(),
        partner_uuid: row.partner_uuid.clone(),
        organisation_uuid: organisation.to_string(),
        configuration_uuid: row.configuration_uuid.clone(),
        process_uuid: row.uuid.clone(),
        status: IntegrationStatus::Enabled,
        created: now,
        updated: now,
    };
    let (outbox, secrets) = (state.outbox.clone(), state.secrets.clone());
    let results = results.to_string();
    let uuid = row.uuid.clone();
    let done = state
        .store
        .query(move |c| {
            c.write_tx(|tx| {
                // One enabled integration per partner and organisation: a second process
                // for an organisation the partner reaches already points at that one, so
                // one disable always ends the partner's access.
                let existing = integrations::enabled_between(
                    tx,
                    &integration.partner_uuid,
                    &integration.organisation_uuid,
                )?;
                let integration_uuid = existing
                    .as_ref()
                    .map_or(integration.uuid.clone(), |e| e.uuid.clone());
                if !processes::complete(tx, &uuid, &results, &integration_uuid, now)? {
                    return Ok(None);
                }
                let Some(done) = processes::find(tx, &secrets, &uuid)? else {
                    return Ok(None);
                };
                let mut announced = Vec::new();
                if existing.is_none() {
                    integrations::insert(tx, &integration)?;
                    announced.push(integration_events::of(
                        &outbox,
                        &PARTNER_INTEGRATION_CREATED,
                        &integration,
                    ));
                }
                announced.push(events::of(
                    &outbox,
                    &ONBOARDING_PROCESS_COMPLETED,
                    &done,
                    now,
                ));
                append(tx, &announced, None)?;
                Ok(Some(done))
            })
        })
        .await?;
    state.outbox.committed();
    let done = done
        .ok_or_else(|| OnboardingError::conflict("this onboarding process is completed already"))?;
    Ok(ProcessRecord::of(&done, Form::ByToken, now))
}

/// Seals again, at start, what onboarding keeps sealed: every process's token stored in
/// clear (a row from before tokens were sealed) or under a master key that is no longer
/// current, and the answers stored sealed under Idempotency-Keys. A token no configured key
/// opens stops the start and names its process: it could not be shown to the partner
/// either, and a key left out of `secrets.keys` is the likely cause.
pub(crate) async fn seal_at_start(store: &Store, secrets: &Secrets) -> Result<(), OnboardingError> {
    resealing::reseal::<processes::Tokens>(store, secrets).await?;
    coffer_http::idempotency::reseal_answers(store, secrets).await?;
    Ok(())
}

/// Whether a user has `email`, behind a captcha and a throttle per source network.
pub(crate) async fn email_exists(
    state: &OnboardingState,
    email: String,
    captcha: Option<String>,
    source: IpAddr,
    network: IpAddr,
) -> Result<bool, OnboardingError> {
    // Both faults are named at once, before the throttle or the captcha is spent on a
    // question that has no answer: an address that is not one is 400, never "no user".
    let mut errors = Vec::new();
    if let Err(e) = coffer_model::email::Email::parse_field("email", &email) {
        errors.push(e);
    }
    let captcha = captcha.filter(|c| !c.is_empty());
    if captcha.is_none() {
        errors.push(coffer_model::validation::FieldError::not_null(
            "recaptcha_token",
        ));
    }
    let (Some(captcha), true) = (captcha, errors.is_empty()) else {
        return Err(OnboardingError::invalid_all(errors));
    };
    if let Some(wait) = state.email_checks.take(network) {
        return Err(OnboardingError::Throttled {
            message: format!(
                "Too many e-mail checks from this network; try again in {wait} seconds"
            ),
            wait,
        });
    }
    let passed = state.captcha.verify(captcha, source).await.map_err(|e| {
        tracing::warn!(error = %e, "the captcha could not be verified");
        OnboardingError::Unavailable("the captcha cannot be verified just now")
    })?;
    if !passed {
        // The captcha was not passed.
        return Err(OnboardingError::forbidden());
    }
    state
        .identity
        .email_exists(email)
        .await
        .map_err(OnboardingError::Identity)
}
