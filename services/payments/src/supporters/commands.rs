//! What changes a supporter: created (once per Idempotency-Key) or updated, each with its
//! event in the same transaction.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_events::TraceContext;
use coffer_events::catalogue::{SUPPORTER_CREATED, SUPPORTER_UPDATED};
use coffer_http::idempotency;
use serde_json::Value;

use super::events::announce;
use super::store;
use crate::command_kit::{Asker, Parts};
use crate::error::PaymentsError;
use crate::shared::supporter::Supporter;
use crate::shared::supporter_store as recorded;
use coffer_directory::organisation_exists;

/// Records a new supporter of `organisation`, which must be known to payments.
pub(crate) async fn create(
    state: &Parts,
    asker: Asker,
    hash: String,
    trace: TraceContext,
    organisation: String,
    supporter: Supporter,
) -> Result<HttpResponse, PaymentsError> {
    let st = state.clone();
    let response = idempotency::run(
        &state.store,
        state.clock.as_ref(),
        &asker.client_id,
        asker.key,
        hash,
        move |tx| {
            if !organisation_exists(tx, &organisation)? {
                return Err(PaymentsError::not_found("Organisation"));
            }
            recorded::insert(tx, &supporter)?;
            let body = announce(tx, &st, &SUPPORTER_CREATED, &supporter, &trace)?;
            Ok((StatusCode::CREATED, body))
        },
    )
    .await?;
    state.outbox.committed();
    Ok(response)
}

/// Stores a supporter's new fields and announces them.
pub(crate) async fn update(
    state: &Parts,
    trace: TraceContext,
    supporter: Supporter,
) -> Result<Value, PaymentsError> {
    let st = state.clone();
    let body = state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                store::update(tx, &supporter)?;
                announce(tx, &st, &SUPPORTER_UPDATED, &supporter, &trace)
            })
        })
        .await?;
    state.outbox.committed();
    Ok(body)
}
