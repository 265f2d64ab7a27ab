//! Partner use cases: creating one, with the API client it signs in and calls the API as.

use serde::Serialize;
use uuid::Uuid;

use super::domain::PartnerInput;
use super::store::{self as partners, PartnerRow};
use crate::clients::domain::{ClientAccess, secret};
use crate::clients::store::ClientRow;
use crate::error::CommandError;
use crate::writes::Writes;

/// A new partner. The secret exists only here; Coffer keeps its digest.
#[derive(Debug, Clone, Serialize)]
pub struct NewPartner {
    pub uuid: String,
    pub name: String,
    pub client_id: String,
    pub client_secret: String,
    pub redirect_uris: Vec<String>,
}

pub(crate) async fn create(
    writes: &Writes,
    input: PartnerInput,
) -> Result<NewPartner, CommandError> {
    let input = input.validate().map_err(CommandError::invalid_all)?;
    let secret = secret::generate().map_err(|_| CommandError::Random)?;
    let now = writes.clock.unix();
    let client = ClientRow {
        client_id: Uuid::new_v4().to_string(),
        secret_sha256: secret::digest_hex(&secret),
        scope: ClientAccess::Partner.scope(),
        created: now,
        disabled_at: None,
    };
    let partner = PartnerRow {
        uuid: Uuid::new_v4().to_string(),
        name: input.name,
        client_id: client.client_id.clone(),
        created: now,
    };
    let made = NewPartner {
        uuid: partner.uuid.clone(),
        name: partner.name.clone(),
        client_id: client.client_id.clone(),
        client_secret: secret,
        redirect_uris: input.redirect_uris.clone(),
    };
    let uris = input.redirect_uris;
    writes
        .store
        .query(move |c| partners::insert(c, &client, &partner, &uris))
        .await?;
    Ok(made)
}
