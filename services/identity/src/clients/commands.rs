//! Client use cases: creating one.

use serde::Serialize;
use uuid::Uuid;

use super::domain::{ClientAccess, secret};
use super::store::{self as clients, ClientRow};
use crate::error::CommandError;
use crate::organisations;
use crate::writes::Writes;

/// A new API client. The secret exists only here; Coffer keeps its digest.
#[derive(Debug, Clone, Serialize)]
pub struct NewClient {
    pub client_id: String,
    pub client_secret: String,
}

pub(crate) async fn create(
    writes: &Writes,
    access: ClientAccess,
) -> Result<NewClient, CommandError> {
    for uuid in access.organisations() {
        organisations::commands::existing(&writes.store, *uuid).await?;
    }
    let organisations: Vec<String> = access
        .organisations()
        .iter()
        .map(ToString::to_string)
        .collect();
    let secret = secret::generate().map_err(|_| CommandError::Random)?;
    let row = ClientRow {
        client_id: Uuid::new_v4().to_string(),
        secret_sha256: secret::digest_hex(&secret),
        scope: access.scope(),
        created: writes.clock.unix(),
        disabled_at: None,
    };
    let client_id = row.client_id.clone();
    writes
        .store
        .query(move |c| clients::insert(c, &row, &organisations))
        .await?;
    Ok(NewClient {
        client_id,
        client_secret: secret,
    })
}
