//! Operator actions: what `coffer admin` and first-start seeding do. They write the same
//! rows the API reads, after the same validation.

use std::collections::BTreeMap;
use std::sync::Arc;

use coffer_auth::scopes;
use coffer_events::catalogue::{
    ACCOUNT_CREATED, ACCOUNT_UPDATED, ORGANISATION_CREATED, ORGANISATION_UPDATED,
};
use coffer_events::outbox::OutboxEvent;
use coffer_events::{Outbox, TraceContext, append};
use coffer_model::clock::Clock;
use coffer_model::validation::FieldError;
use coffer_secrets::Secrets;
use coffer_store::{Db, Store, StoreError};
use diesel::QueryResult;
use serde::Serialize;
use uuid::Uuid;

use crate::announce;
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
    #[error("making a signing key needs the master keys (secrets.keys)")]
    NoMasterKey,
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

/// An organisation or an account, as the owner of addresses and metadata.
enum Owner {
    Organisation(String),
    Account(String),
}

#[derive(Clone)]
pub struct Admin {
    store: Store,
    clock: Arc<dyn Clock>,
    outbox: Outbox,
    /// Only the actions that make keys need them; the others run without.
    secrets: Option<Secrets>,
}

impl Admin {
    /// `outbox` carries the events of every change (the relay of the running service
    /// publishes them, also when the change was made by another process).
    pub fn new(store: Store, clock: Arc<dyn Clock>, outbox: Outbox) -> Self {
        Self {
            store,
            clock,
            outbox,
            secrets: None,
        }
    }

    /// The master keys new signing keys are sealed with.
    pub fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = Some(secrets);
        self
    }

    /// Makes `change` and appends the events it returns, in one transaction.
    async fn write_announcing<F>(&self, change: F) -> Result<(), AdminError>
    where
        F: FnOnce(&mut Db<'_>, &Outbox) -> QueryResult<Vec<OutboxEvent>> + Send + 'static,
    {
        let outbox = self.outbox.clone();
        // Operator changes start their own trace; it follows the events to every consumer.
        let trace = TraceContext::new_root();
        self.store
            .query(move |db| {
                db.write_tx(|tx| {
                    let events = change(tx, &outbox)?;
                    append(tx, &events, Some(&trace))
                })
            })
            .await?;
        self.outbox.committed();
        Ok(())
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
        self.write_announcing(move |tx, outbox| {
            organisations::insert(tx, &stored)?;
            Ok(vec![announce::organisation(
                tx,
                outbox,
                &ORGANISATION_CREATED,
                &stored.uuid,
            )?])
        })
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
        self.write_announcing(move |tx, outbox| {
            accounts::insert(tx, &stored)?;
            // The organisation's single form lists its accounts, so it changed too.
            Ok(vec![
                announce::account(tx, outbox, &ACCOUNT_CREATED, &stored.uuid)?,
                announce::organisation(
                    tx,
                    outbox,
                    &ORGANISATION_UPDATED,
                    &stored.organisation_uuid,
                )?,
            ])
        })
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
        self.add_address(Owner::Organisation(org.uuid), input).await
    }

    pub async fn add_account_address(
        &self,
        account: Uuid,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let acc = self.account(account).await?;
        self.add_address(Owner::Account(acc.uuid), input).await
    }

    async fn add_address(
        &self,
        owner: Owner,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let valid = input.validate().map_err(AdminError::Invalid)?;
        let (organisation_uuid, account_uuid) = match &owner {
            Owner::Organisation(o) => (Some(o.clone()), None),
            Owner::Account(a) => (None, Some(a.clone())),
        };
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
        self.write_announcing(move |tx, outbox| {
            addresses::insert(tx, &stored)?;
            Ok(vec![updated(tx, outbox, &owner)?])
        })
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
        let key = match &owner {
            Owner::Organisation(u) | Owner::Account(u) => u.clone(),
        };
        let written = key.clone();
        self.write_announcing(move |tx, outbox| {
            metadata::upsert(tx, &written, &entries)?;
            Ok(vec![updated(tx, outbox, &owner)?])
        })
        .await?;
        Ok(self.store.query(move |c| metadata::get(c, &key)).await?)
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
        self.write_announcing(move |tx, outbox| {
            billing::upsert(tx, &stored)?;
            Ok(vec![announce::account(
                tx,
                outbox,
                &ACCOUNT_UPDATED,
                &stored.account_uuid,
            )?])
        })
        .await?;
        json(&BillingDataView::new(&row, &acc, &org))
    }

    /// Signs new tokens with a fresh key; the old one keeps verifying until its tokens expire.
    pub async fn rotate_signing_key(&self) -> Result<String, AdminError> {
        let secrets = self.secrets.as_ref().ok_or(AdminError::NoMasterKey)?;
        Ok(keyring::rotate(&self.store, self.clock.as_ref(), secrets).await?)
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

    async fn owner(&self, uuid: Uuid) -> Result<Owner, AdminError> {
        match self.organisation(uuid).await {
            Ok(o) => Ok(Owner::Organisation(o.uuid)),
            Err(AdminError::NotFound(_)) => self
                .account(uuid)
                .await
                .map(|a| Owner::Account(a.uuid))
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

/// The `updated` event of whichever owner changed.
fn updated(tx: &mut Db<'_>, outbox: &Outbox, owner: &Owner) -> QueryResult<OutboxEvent> {
    match owner {
        Owner::Organisation(u) => announce::organisation(tx, outbox, &ORGANISATION_UPDATED, u),
        Owner::Account(u) => announce::account(tx, outbox, &ACCOUNT_UPDATED, u),
    }
}

fn json<T: Serialize>(value: &T) -> Result<serde_json::Value, AdminError> {
    serde_json::to_value(value).map_err(AdminError::Encode)
}
