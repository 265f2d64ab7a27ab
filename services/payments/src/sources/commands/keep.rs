//! Keeping a payment source: the Idempotency-Key reserved first, the provider asked to
//! keep the instrument under the source's uuid outside any transaction, then the source,
//! its supporter and their events recorded in one transaction.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_events::catalogue::SUPPORTER_CREATED;
use coffer_events::{TraceContext, append};
use coffer_http::idempotency;
use serde_json::json;

use crate::command_kit::{Asker, Parts, Reserved, provider_of, reserved};
use crate::error::PaymentsError;
use crate::shared::announce::source_announcement;
use crate::shared::connector::{ConnectorError, StoreOutcome};
use crate::shared::method::Instrument;
use crate::shared::profile::Profile;
use crate::shared::source::{Source, SourceStatus};
use crate::shared::source_store as recorded;
use crate::shared::supporter::Supporter;

/// A source about to be kept: what the request became.
pub(crate) struct Keeping {
    pub uuid: String,
    pub instrument: Instrument,
    /// What of the instrument may be shown.
    pub masked: serde_json::Value,
    /// A supporter the source creates.
    pub supporter: Option<Supporter>,
    /// A supporter the source names, which must be the organisation's.
    pub named_supporter: Option<String>,
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
) -> Result<HttpResponse, PaymentsError> {
    let Keeping {
        uuid,
        instrument,
        masked,
        supporter,
        named_supporter,
        organisation,
        account,
        profile,
        custom_parameters,
        return_url,
        created,
    } = keeping;
    // A supporter the source names is the organisation's, checked before the provider is
    // asked to keep anything (supporters are never deleted, so it stays so).
    if let Some(named) = named_supporter.clone() {
        let org = organisation.clone();
        state
            .store
            .query(move |db| crate::shared::supporter_store::find(db, &named))
            .await?
            .filter(|s| s.organisation_uuid == org)
            .ok_or(PaymentsError::not_found("Supporter"))?;
    }
    let connector = provider_of(state, &profile).await?;
    let refused = connector.refuses(None, &instrument, true);
    if !refused.is_empty() {
        return Err(PaymentsError::invalid_all(refused));
    }
    // The provider makes the mandate and its reference (Stripe): Coffer's is not shown.
    let mut masked = masked;
    if !connector.own_debit_identifiers()
        && let Some(shown) = masked.as_object_mut()
    {
        shown.remove("mandate_reference");
    }
    // The key is reserved before the provider is asked, so a retried request never keeps
    // the instrument a second time.
    let source_uuid = uuid.clone();
    let reservation = asker
        .reserve(
            state,
            hash,
            move |_| Ok::<_, PaymentsError>(source_uuid.clone()),
            |uuid: &String| json!({ "payment_source_uuid": uuid }),
        )
        .await?;
    let in_progress = |id: String| async move {
        match state.store.query(move |db| recorded::find(db, &id)).await? {
            Some(source) => Ok(HttpResponse::Created().json(source)),
            None => Err(PaymentsError::conflict(
                "A request with this Idempotency-Key is in progress",
            )),
        }
    };
    if let Reserved::Answered(response) =
        reserved(reservation, "payment_source_uuid", in_progress).await?
    {
        return Ok(response);
    }
    state.outbox.committed();
    // Keeping an instrument is a provider call, made outside any transaction under the
    // source's uuid; a lost answer keeps nothing here and the key stays in progress.
    // Up to five calls at the provider (a card, a customer, a setup, its confirmation and
    // perhaps its cancel), each within the connector's timeout.
    let budget = state.connector_timeout.saturating_mul(5);
    let keeping = tokio::time::timeout(budget, connector.store_instrument(&instrument, &uuid));
    let kept = match keeping.await.unwrap_or(Err(ConnectorError::Timeout)) {
        Ok(kept) => kept,
        Err(e) => {
            // Nothing is recorded, so the key is given back: the client may retry with it.
            // No money moves in keeping an instrument; at worst the provider keeps one that
            // Coffer never names.
            tracing::warn!(error = %e, "keeping a payment source: the provider did not answer");
            let (client, key) = (asker.client_id.clone(), asker.key.clone());
            state
                .store
                .write(move |tx| {
                    idempotency::release(tx, &client, &key).map_err(PaymentsError::from)
                })
                .await?;
            return Err(PaymentsError::ProviderSilent(
                "The payment provider did not answer; nothing was kept",
            ));
        }
    };
    let (status, reason, reference, action) = match kept {
        StoreOutcome::Active { reference } => (SourceStatus::Active, None, reference, None),
        StoreOutcome::Pending {
            reference,
            redirect,
        } => (
            SourceStatus::Pending,
            None,
            reference,
            Some(json!({ "type": "redirect", "url": redirect })),
        ),
        StoreOutcome::Failed { reason } => {
            (SourceStatus::Failed, Some(reason), String::new(), None)
        }
    };
    drop(instrument);
    let source = Source {
        uuid,
        created,
        organisation_uuid: organisation,
        account_uuid: account,
        test_mode: profile.test_mode,
        payment_method: profile.payment_method,
        profile: profile.name.clone(),
        payment_provider: profile.provider.clone(),
        provider_reference: reference,
        status,
        status_reason: reason,
        payment_information: masked,
        supporter_uuid: supporter
            .as_ref()
            .map(|s| s.uuid.clone())
            .or(named_supporter),
        custom_parameters,
        action,
        return_url,
    };
    let st = state.clone();
    let body = state
        .store
        .write(move |tx| {
            if let Some(s) = &supporter {
                crate::shared::supporter_store::insert(tx, s)?;
                let event = st.outbox.event(
                    &SUPPORTER_CREATED,
                    s.uuid.parse().map_err(PaymentsError::internal)?,
                    source.organisation_uuid.parse().ok(),
                    None,
                    serde_json::to_value(s).map_err(PaymentsError::internal)?,
                );
                append(tx, &[event], Some(&trace))?;
            }
            recorded::insert(tx, &source)?;
            let body = serde_json::to_value(&source).map_err(PaymentsError::internal)?;
            if let Some(event) = source_announcement(&st.outbox, &source)? {
                append(tx, &[event], Some(&trace))?;
            }
            idempotency::complete(
                tx,
                &asker.client_id,
                &asker.key,
                &(StatusCode::CREATED, body.clone()),
            )?;
            Ok::<_, PaymentsError>(body)
        })
        .await?;
    state.outbox.committed();
    Ok(HttpResponse::Created().json(body))
}
