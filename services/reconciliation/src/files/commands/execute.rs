//! The deprecated execute operation: the files sent with the request, read one after
//! another with a blueprint, answered with their reports. Each file is its own
//! transaction, so the answer cannot be stored in the transaction of its effect; reading a
//! file again is safe (every credit, payout and debit is matched once across files), so an
//! Idempotency-Key is held while the files are read and then given their answer.

use std::sync::Arc;
use std::time::Duration;

use crate::error::ReconciliationError;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_http::idempotency::{self, Held, IdempotencyKey};

use super::{Arrived, Origin, read_in_turn, refuse};
use crate::blueprints::store::Blueprint;
use crate::files::turns::Turns;
use crate::reports::record::Report;
use crate::state::ReconciliationState;

/// How long a request under a key another request holds waits for that one's answer.
const WAIT: Duration = Duration::from_secs(30);
/// A hold older than this belongs to a request that stopped (reading ten files of 10 MB
/// takes seconds): a retry under the key takes it over and reads the files again.
const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// A request to execute: who sent it, under which key, and the files it carries (name and
/// bytes), with what identifies it as the same request again.
pub struct Execution {
    pub client_id: String,
    pub key: IdempotencyKey,
    pub hash: String,
    pub files: Vec<(String, Vec<u8>)>,
}

/// Reads each file with `blueprint`, each in its turn: one file answers its report,
/// several an array of reports in their order; the same request again under the key
/// answers the same.
pub async fn execute(
    state: &ReconciliationState,
    turns: &Turns,
    blueprint: Blueprint,
    execution: Execution,
) -> Result<HttpResponse, ReconciliationError> {
    let Execution {
        client_id,
        key,
        hash,
        files,
    } = execution;
    let (store, clock) = (&state.store, state.clock.as_ref());
    let asked = (client_id.as_str(), &key, hash.as_str());
    if let Held::Answered(answer) =
        idempotency::hold_while(store, clock, asked, WAIT, STALE_AFTER).await?
    {
        return Ok(answer);
    }
    let mut reports = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        match read_one(state, turns, &blueprint, name, bytes).await {
            Ok(report) => reports.push(report),
            Err(e) => {
                // Nothing is answered under the key: the client may send the files again.
                idempotency::give_back(store, &client_id, &key).await?;
                return Err(e);
            }
        }
    }
    let body = match reports.len() {
        1 => serde_json::to_value(&reports[0]),
        _ => serde_json::to_value(&reports),
    }
    .map_err(ReconciliationError::internal)?;
    idempotency::finish(store, &client_id, &key, (StatusCode::CREATED, body.clone())).await?;
    Ok(HttpResponse::Created().json(body))
}

/// One file's report: read in its turn, or refused when it is over the memory budget.
async fn read_one(
    state: &ReconciliationState,
    turns: &Turns,
    blueprint: &Blueprint,
    name: String,
    bytes: Vec<u8>,
) -> Result<Report, ReconciliationError> {
    let row = match turns.take(&blueprint.organisation_uuid, bytes.len()).await {
        Ok(turn) => {
            let arrived = Arrived {
                name,
                bytes: Arc::new(bytes),
                source_uuid: None,
                file_uuid: None,
            };
            read_in_turn(state, &turn, blueprint.clone(), arrived).await?
        }
        Err(over) => {
            let origin = Origin {
                name,
                source_uuid: None,
                file_uuid: None,
            };
            let sha = coffer_secrets::sha256_hex(&bytes);
            refuse(
                state,
                blueprint.clone(),
                origin,
                Some(sha),
                over.to_string(),
            )
            .await?
        }
    };
    Report::from_row(row, true).map_err(ReconciliationError::internal)
}
