//! Operator actions: what `coffer admin` and first-start seeding do. They write the same
//! rows the API reads, after the same validation.

use std::collections::BTreeMap;
use std::sync::Arc;

use coffer_auth::scopes;
use coffer_model::clock::Clock;
use coffer_model::validation::FieldError;
use coffer_store::{Store, StoreError};
use serde::Serialize;
use uuid::Uuid;

use crate::domain::client_secret;
use crate::domain::directory::{AddressInput, BillingInput, OrganisationInput, validate_metadata};
use crate::keyring::{self, KeyringError};
use crate::routes::views::{AccountDetail, AddressView, BillingDataView, OrganisationDetail};
use crate::store::rows::{AccountRow, AddressRow, BillingRow, ClientRow, OrganisationRow};
use crate::store::{accounts, addresses, billing, clients, metadata, organisations};

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("invalid input: {}", describe(.0))]
    Invalid(Vec<FieldError>),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Keys(#[from] KeyringError),
    #[error("the system random number generator failed")]
    Random,
    #[error("could not encode the result: {0}")]
    Encode(#[from] serde_json::Error),
}

fn describe(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.property, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A new API client. The secret exists only here; Coffer keeps its digest.
#[derive(Debug, Clone, Serialize)]
pub struct NewClient {
    pub client_id: String,
    pub client_secret: String,
}

/// Which organisations a new client may touch.
#[derive(Debug, Clone)]
pub enum ClientAccess {
    Organisations(Vec<Uuid>),
    /// Every tenant: operator tooling and service-to-service calls.
    Platform,
}

#[derive(Clone)]
pub struct Admin {
    store: Store,
    clock: Arc<dyn Clock>,
}

impl Admin {
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    pub async fn create_organisation(
        &self,
        input: OrganisationInput,
    ) -> Result<serde_json::Value, AdminError> {
        let valid = input.validate().map_err(AdminError::Invalid)?;
        let row = OrganisationRow {
            uuid: Uuid::new_v4().to_string(),
            name: valid.name,
            created: self.clock.unix(),
            approval_status: valid.approval_status,
            active: true,
            merchant_category_code: valid.merchant_category_code,
            locale: valid.locale,
        };
        let stored = row.clone();
        self.store
            .query(move |c| organisations::insert(c, &stored))
            .await?;
        json(&OrganisationDetail::new(&row, &[]))
    }

    pub async fn create_account(
        &self,
        organisation: Uuid,
        name: &str,
    ) -> Result<serde_json::Value, AdminError> {
        if name.trim().is_empty() {
            return Err(AdminError::Invalid(vec![FieldError::not_blank("name")]));
        }
        let org = self.organisation(organisation).await?;
        let row = AccountRow {
            uuid: Uuid::new_v4().to_string(),
            organisation_uuid: org.uuid.clone(),
            name: name.trim().to_owned(),
            created: self.clock.unix(),
            active: true,
        };
        let stored = row.clone();
        self.store
            .query(move |c| accounts::insert(c, &stored))
            .await?;
        json(&AccountDetail::new(&row, &org))
    }

    pub async fn create_client(&self, access: ClientAccess) -> Result<NewClient, AdminError> {
        let (scope, organisations) = match access {
            ClientAccess::Platform => (format!("{} {}", scopes::API, scopes::PLATFORM), Vec::new()),
            ClientAccess::Organisations(list) => {
                for uuid in &list {
                    self.organisation(*uuid).await?;
                }
                (
                    scopes::API.to_owned(),
                    list.iter().map(ToString::to_string).collect(),
                )
            }
        };
        let secret = client_secret::generate().map_err(|_| AdminError::Random)?;
        let row = ClientRow {
            client_id: Uuid::new_v4().to_string(),
            secret_sha256: client_secret::digest_hex(&secret),
            scope,
            created: self.clock.unix(),
            disabled_at: None,
        };
        let client_id = row.client_id.clone();
        self.store
            .query(move |c| clients::insert(c, &row, &organisations))
            .await?;
        Ok(NewClient {
            client_id,
            client_secret: secret,
        })
    }

    pub async fn add_organisation_address(
        &self,
        organisation: Uuid,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let org = self.organisation(organisation).await?;
        self.add_address(Some(org.uuid), None, input).await
    }

    pub async fn add_account_address(
        &self,
        account: Uuid,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let acc = self.account(account).await?;
        self.add_address(None, Some(acc.uuid), input).await
    }

    async fn add_address(
        &self,
        organisation_uuid: Option<String>,
        account_uuid: Option<String>,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let valid = input.validate().map_err(AdminError::Invalid)?;
        let row = AddressRow {
            uuid: Uuid::new_v4().to_string(),
            organisation_uuid,
            account_uuid,
            created: self.clock.unix(),
            address_line1: valid.address_line1,
            address_line2: valid.address_line2,
            postal_code: valid.postal_code,
            city: valid.city,
            country_code: valid.country_code,
            kind: valid.kind,
        };
        let stored = row.clone();
        self.store
            .query(move |c| addresses::insert(c, &stored))
            .await?;
        json(&AddressView::from(&row))
    }

    /// Sets metadata keys of an organisation or an account (whichever `owner` is).
    pub async fn set_metadata(
        &self,
        owner: Uuid,
        entries: BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, AdminError> {
        validate_metadata(&entries).map_err(AdminError::Invalid)?;
        let owner = self.owner(owner).await?;
        self.store
            .query(move |c| {
                metadata::upsert(c, &owner, &entries)?;
                metadata::get(c, &owner)
            })
            .await
            .map_err(AdminError::from)
    }

    /// Sets an account's billing data; returns it as the API shows it.
    pub async fn set_billing_data(
        &self,
        account: Uuid,
        input: BillingInput,
    ) -> Result<serde_json::Value, AdminError> {
        let valid = input.validate().map_err(AdminError::Invalid)?;
        let acc = self.account(account).await?;
        let organisation = acc
            .organisation_uuid
            .parse()
            .map_err(|_| AdminError::NotFound("organisation"))?;
        let org = self.organisation(organisation).await?;
        let row = BillingRow {
            account_uuid: acc.uuid.clone(),
            account_holder: valid.account_holder,
            iban: valid.iban,
            vat_number: valid.vat_number,
            recipient_emails: serde_json::to_string(&valid.recipient_emails)
                .unwrap_or_else(|_| "[]".into()),
            address_line1: valid.address.address_line1,
            address_line2: valid.address.address_line2,
            postal_code: valid.address.postal_code,
            city: valid.address.city,
            country_code: valid.address.country_code,
        };
        let stored = row.clone();
        self.store
            .query(move |c| billing::upsert(c, &stored))
            .await?;
        json(&BillingDataView::new(&row, &acc, &org))
    }

    /// Signs new tokens with a fresh key; the old one keeps verifying until its tokens expire.
    pub async fn rotate_signing_key(&self) -> Result<String, AdminError> {
        Ok(keyring::rotate(&self.store, self.clock.as_ref()).await?)
    }

    pub async fn organisation_count(&self) -> Result<i64, AdminError> {
        let rows = self
            .store
            .query(|c| organisations::list(c, None, 1))
            .await?;
        Ok(rows.len() as i64)
    }

    async fn organisation(&self, uuid: Uuid) -> Result<OrganisationRow, AdminError> {
        let key = uuid.to_string();
        self.store
            .query(move |c| organisations::find(c, &key))
            .await?
            .ok_or(AdminError::NotFound("organisation"))
    }

    async fn account(&self, uuid: Uuid) -> Result<AccountRow, AdminError> {
        let key = uuid.to_string();
        self.store
            .query(move |c| accounts::find(c, &key))
            .await?
            .ok_or(AdminError::NotFound("account"))
    }

    async fn owner(&self, uuid: Uuid) -> Result<String, AdminError> {
        match self.organisation(uuid).await {
            Ok(o) => Ok(o.uuid),
            Err(AdminError::NotFound(_)) => self
                .account(uuid)
                .await
                .map(|a| a.uuid)
                .map_err(|_| AdminError::NotFound("organisation or account")),
            Err(e) => Err(e),
        }
    }

    /// The first organisation ever created, if any: the demo one in a standalone install.
    pub async fn first_organisation(&self) -> Result<Option<String>, AdminError> {
        let rows = self
            .store
            .query(|c| organisations::list(c, None, 1))
            .await?;
        Ok(rows.into_iter().next().map(|o| o.uuid))
    }

    pub async fn account_uuids(&self, organisation: &str) -> Result<Vec<String>, AdminError> {
        let key = organisation.to_owned();
        let rows = self
            .store
            .query(move |c| accounts::of_organisation(c, &key))
            .await?;
        Ok(rows.into_iter().map(|a| a.uuid).collect())
    }
}

fn json<T: Serialize>(value: &T) -> Result<serde_json::Value, AdminError> {
    serde_json::to_value(value).map_err(AdminError::Encode)
}
