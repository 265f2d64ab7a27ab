//! Keeping a payment source: the Idempotency-Key reserved first, the provider asked to
//! keep the instrument under the source's uuid outside any transaction, then the source,
//! its supporter and their events recorded in one transaction.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_events::catalogue::{PAYMENT_SOURCE_CREATED, PAYMENT_SOURCE_FAILED, SUPPORTER_CREATED};
use coffer_events::{TraceContext, append};
use coffer_http::idempotency::{self, Reservation};
use coffer_http::{ApiError, Failure, internal};
use serde_json::json;

use super::store::{self, Source};
use crate::connectors::{Instrument, StoreOutcome};
use crate::payments::commands::{self, Asker, Parts};
use crate::profiles::store::Profile;
use crate::supporters::domain::Supporter;

/// A source about to be kept: what the request became.
pub(crate) struct Keeping {
    pub uuid: String,
    pub instrument: Instrument,
    /// What of the instrument may be shown.
    pub masked: serde_json::Value,
    pub supporter: Option<Supporter>,
    pub organisation: String,
    pub account: String,
    pub profile: Profile,
    pub custom_parameters: serde_json::Value,
    pub return_url: Option<String>,
    pub created: i64,
}

/// POST /payment-sources.
pub(crate) async fn keep(
    state: &Parts,
    asker: Asker,
    hash: String,
    trace: TraceContext,
    keeping: Keeping,
) -> Result<HttpResponse, ApiError> {
    let Keeping {
        uuid,
        instrument,
        masked,
        supporter,
        organisation,
        account,
        profile,
        custom_parameters,
        return_url,
        created,
    } = keeping;
    // The key is reserved before the provider is asked, so a retried request never keeps
    // the instrument a second time.
    let source_uuid = uuid.clone();
    let reserved = idempotency::reserve(
        &state.store,
        state.clock.as_ref(),
        &asker.client_id,
        &asker.key,
        hash,
        move |_| Ok::<_, Failure>(source_uuid.clone()),
        |uuid: &String| json!({ "payment_source_uuid": uuid }),
    )
    .await?;
    match reserved {
        Reservation::Fresh(_) => {}
        Reservation::Replay(response) => return Ok(response),
        Reservation::InProgress(marker) => {
            let id = marker["payment_source_uuid"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            return match state.store.query(move |db| store::find(db, &id)).await? {
                Some(source) => Ok(HttpResponse::Created().json(source)),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            };
        }
    }
    state.outbox.committed();
    // Keeping an instrument is a provider call, made outside any transaction under the
    // source's uuid; a lost answer keeps nothing here and the key stays in progress.
    let kept =
        match commands::within(state, state.connector.store_instrument(&instrument, &uuid)).await {
            Ok(kept) => kept,
            Err(e) => {
                // Nothing is recorded, so the key is given back: the client may retry with it.
                // No money moves in keeping an instrument; at worst the provider keeps one that
                // Coffer never names.
                tracing::warn!(error = %e, "keeping a payment source: the provider did not answer");
                let (client, key) = (asker.client_id.clone(), asker.key.clone());
                state
                    .store
                    .write(move |tx| idempotency::release(tx, &client, &key).map_err(Failure::from))
                    .await
                    .map_err(ApiError::from)?;
                return Err(ApiError::unavailable(
                    "The payment provider did not answer; nothing was kept",
                ));
            }
        };
    let (status, reason, reference, action) = match kept {
        StoreOutcome::Active { reference } => ("active", None, reference, None),
        StoreOutcome::Pending {
            reference,
            redirect,
        } => (
            "pending",
            None,
            reference,
            Some(json!({ "type": "redirect", "url": redirect })),
        ),
        StoreOutcome::Failed { reason } => ("failed", Some(reason), String::new(), None),
    };
    drop(instrument);
    let source = Source {
        uuid,
        created,
        organisation_uuid: organisation,
        account_uuid: account,
        test_mode: profile.test_mode,
        payment_method: profile.payment_method.clone(),
        profile: profile.name.clone(),
        payment_provider: profile.provider.clone(),
        provider_reference: reference,
        status: status.to_owned(),
        status_reason: reason,
        payment_information: masked,
        supporter_uuid: supporter.as_ref().map(|s| s.uuid.clone()),
        custom_parameters,
        action,
        return_url,
    };
    let st = state.clone();
    let body = state
        .store
        .write(move |tx| {
            if let Some(s) = &supporter {
                crate::supporters::store::insert(tx, s)?;
                let event = st.outbox.event(
                    &SUPPORTER_CREATED,
                    s.uuid.parse().map_err(internal)?,
                    source.organisation_uuid.parse().ok(),
                    None,
                    serde_json::to_value(s).map_err(internal)?,
                );
                append(tx, &[event], Some(&trace))?;
            }
            store::insert(tx, &source)?;
            let body = serde_json::to_value(&source).map_err(internal)?;
            // A pending source is announced once the donor has decided (test_psp_pages.rs).
            let kind = match source.status.as_str() {
                "failed" => Some(&PAYMENT_SOURCE_FAILED),
                "active" => Some(&PAYMENT_SOURCE_CREATED),
                _ => None,
            };
            if let Some(kind) = kind {
                let event = st.outbox.event(
                    kind,
                    source.uuid.parse().map_err(internal)?,
                    source.organisation_uuid.parse().ok(),
                    source.account_uuid.parse().ok(),
                    body.clone(),
                );
                append(tx, &[event], Some(&trace))?;
            }
            idempotency::complete(
                tx,
                &asker.client_id,
                &asker.key,
                &(StatusCode::CREATED, body.clone()),
            )?;
            Ok::<_, Failure>(body)
        })
        .await
        .map_err(ApiError::from)?;
    state.outbox.committed();
    Ok(HttpResponse::Created().json(body))
}
