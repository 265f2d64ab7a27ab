//! Sources' use cases.

use crate::error::ReconciliationError;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_http::idempotency::Once;
use coffer_model::paging::Paging;
use coffer_secrets::Secrets;
use coffer_store::resealing::{self, PassError};
use coffer_store::{Db, Store};

use super::domain::{SourceInput, secret_context};
use super::store::{self, Row, Source};
use crate::blueprints::store as blueprints;
use crate::lists::visible_page;
use crate::state::ReconciliationState;
use crate::tenancy::{find_visible, require_account};

/// Seals again, at start, the SFTP secrets sealed under a master key that is no longer
/// current. One no configured key opens stops the start and names its source: the source
/// could not be polled either, and a key left out of `secrets.keys` is the likely cause.
/// Without master keys nothing is opened, so there is nothing to do.
pub async fn seal_at_start(store: &Store, secrets: Option<&Secrets>) -> Result<(), PassError> {
    if let Some(secrets) = secrets {
        resealing::reseal::<store::SftpSecrets>(store, secrets).await?;
        // Sources made under an Idempotency-Key keep their answers sealed too.
        coffer_http::idempotency::reseal_answers(store, secrets).await?;
    }
    Ok(())
}

pub async fn create(
    state: &ReconciliationState,
    caller: &Caller,
    once: Once,
    input: SourceInput,
) -> Result<HttpResponse, ReconciliationError> {
    require_account(
        &state.store,
        caller,
        input.organisation_uuid,
        input.account_uuid,
    )
    .await?;
    let key = input.blueprint_uuid.to_string();
    let blueprint = state
        .store
        .query(move |db| blueprints::find(db, &key))
        .await?;
    if blueprint.is_none_or(|b| b.account_uuid != input.account_uuid.to_string()) {
        return Err(ReconciliationError::invalid(
            "blueprint_uuid",
            "must be a blueprint of the source's account",
        ));
    }
    let uuid = uuid::Uuid::new_v4().to_string();
    let now = state.clock.unix();
    let sealed = match &input.sftp {
        Some(sftp) => {
            let secrets = state.secrets.as_ref().ok_or_else(|| {
                ReconciliationError::NotConfigured(
                    "SFTP sources need the master keys (secrets.master_keys)",
                )
            })?;
            Some(
                secrets
                    .seal(&secret_context(&uuid), sftp.secret.text().as_bytes())
                    .map_err(ReconciliationError::internal)?,
            )
        }
        None => None,
    };
    let sftp = input.sftp.as_ref();
    let row = Row {
        uuid: uuid.clone(),
        organisation_uuid: input.organisation_uuid.to_string(),
        account_uuid: input.account_uuid.to_string(),
        name: input.name.clone(),
        kind: input.kind.as_str().to_owned(),
        blueprint_uuid: input.blueprint_uuid.to_string(),
        sftp_host: sftp.map(|s| s.host.clone()),
        sftp_port: sftp.map(|s| i32::from(s.port)),
        sftp_username: sftp.map(|s| s.username.clone()),
        sftp_secret: sealed,
        sftp_secret_kind: sftp.map(|s| s.secret.kind().to_owned()),
        sftp_directory: sftp.map(|s| s.directory.clone()),
        sftp_poll_seconds: sftp.map(|s| s.poll_seconds),
        sftp_host_key: sftp.map(|s| s.host_key.clone()),
        polled: None,
        poll_error: None,
        created: now,
        updated: now,
    };
    let source = serde_json::to_value(
        row.clone()
            .into_source()
            .map_err(ReconciliationError::internal)?,
    )
    .map_err(ReconciliationError::internal)?;
    let effect = move |tx: &mut Db<'_>| {
        store::insert(tx, &row)?;
        Ok::<_, ReconciliationError>((StatusCode::CREATED, source.clone()))
    };
    // An SFTP source's request carries its password or private key: its answer and digest
    // are kept sealed under the key, as the source's row keeps the secret.
    let answered = match &state.secrets {
        Some(secrets) => {
            once.run_sealed(&state.store, state.clock.as_ref(), secrets, effect)
                .await
        }
        None => once.run(&state.store, state.clock.as_ref(), effect).await,
    };
    Ok(answered?)
}

/// The source, once the caller may see its account.
pub async fn get(
    state: &ReconciliationState,
    caller: &Caller,
    uuid: String,
) -> Result<Source, ReconciliationError> {
    find_visible(&state.store, caller, "Source", uuid, store::find).await
}

pub async fn list(
    state: &ReconciliationState,
    caller: &Caller,
    account: Option<uuid::Uuid>,
    paging: Paging,
) -> Result<Vec<Source>, ReconciliationError> {
    visible_page(&state.store, caller, account, paging, store::list).await
}
