//! Operator actions: what `coffer admin` and first-start seeding do. Each is one of the
//! features' commands, so it writes the same rows the API reads, after the same
//! validation; this facade only holds what they need and renders their results as the
//! API shows them.

use std::collections::BTreeMap;
use std::sync::Arc;

use coffer_events::Outbox;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::Store;
use serde::Serialize;
use uuid::Uuid;

pub use crate::clients::{ClientAccess, NewClient};
pub use crate::error::CommandError as AdminError;

use crate::accounts::domain::BillingInput;
use crate::accounts::views::{AccountDetail, BillingDataView};
use crate::address::AddressInput;
use crate::attachments::views::AddressView;
use crate::organisations::domain::OrganisationInput;
use crate::organisations::views::OrganisationDetail;
use crate::partners::{NewPartner, PartnerInput};
use crate::users::UserInput;
use crate::users::domain::UserView;
use crate::writes::Writes;
use crate::{accounts, attachments, clients, keys, organisations, partners, users};

#[derive(Clone)]
pub struct Admin {
    writes: Writes,
    /// Only the actions that make keys need them; the others run without.
    secrets: Option<Secrets>,
}

impl Admin {
    /// `outbox` carries the events of every change (the relay of the running service
    /// publishes them, also when the change was made by another process).
    pub fn new(store: Store, clock: Arc<dyn Clock>, outbox: Outbox) -> Self {
        Self {
            writes: Writes {
                store,
                clock,
                outbox,
            },
            secrets: None,
        }
    }

    /// The master keys new signing keys are sealed with.
    pub fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = Some(secrets);
        self
    }

    pub async fn create_organisation(
        &self,
        input: OrganisationInput,
    ) -> Result<serde_json::Value, AdminError> {
        let row = organisations::commands::create(&self.writes, input).await?;
        json(&OrganisationDetail::new(&row, &[]))
    }

    pub async fn create_account(
        &self,
        organisation: Uuid,
        name: &str,
    ) -> Result<serde_json::Value, AdminError> {
        let (row, org) = accounts::commands::create(&self.writes, organisation, name).await?;
        json(&AccountDetail::new(&row, &org))
    }

    pub async fn create_client(&self, access: ClientAccess) -> Result<NewClient, AdminError> {
        clients::commands::create(&self.writes, access).await
    }

    /// A partner with its client (its secret shown only here) and redirect URIs.
    pub async fn create_partner(&self, input: PartnerInput) -> Result<NewPartner, AdminError> {
        partners::commands::create(&self.writes, input).await
    }

    /// Whether a partner with this uuid exists.
    pub async fn partner_exists(&self, uuid: Uuid) -> Result<bool, AdminError> {
        let key = uuid.to_string();
        Ok(self
            .writes
            .store
            .query(move |c| partners::store::find(c, &key))
            .await?
            .is_some())
    }

    pub async fn create_user(&self, input: UserInput) -> Result<UserView, AdminError> {
        users::commands::create(&self.writes, input).await
    }

    /// Onboards an organisation in this process (`coffer dev`'s onboarding service calls
    /// this where a distributed one calls `POST /internal/onboardings`).
    pub async fn onboard(
        &self,
        request: crate::onboardings::domain::OnboardingRequest,
    ) -> Result<crate::onboardings::domain::Onboarded, AdminError> {
        crate::onboardings::commands::onboard(&self.writes, request)
            .await
            .map(|(done, _)| done)
    }

    pub async fn set_user_password(
        &self,
        email: &str,
        password: String,
    ) -> Result<UserView, AdminError> {
        users::commands::set_password(&self.writes, email, password).await
    }

    pub async fn add_organisation_address(
        &self,
        organisation: Uuid,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let row =
            attachments::commands::add_organisation_address(&self.writes, organisation, input)
                .await?;
        json(&AddressView::from(&row))
    }

    pub async fn add_account_address(
        &self,
        account: Uuid,
        input: AddressInput,
    ) -> Result<serde_json::Value, AdminError> {
        let row = attachments::commands::add_account_address(&self.writes, account, input).await?;
        json(&AddressView::from(&row))
    }

    /// Sets metadata keys of an organisation or an account (whichever `owner` is).
    pub async fn set_metadata(
        &self,
        owner: Uuid,
        entries: BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, AdminError> {
        attachments::commands::set_metadata(&self.writes, owner, entries).await
    }

    /// Sets an account's billing data; returns it as the API shows it.
    pub async fn set_billing_data(
        &self,
        account: Uuid,
        input: BillingInput,
    ) -> Result<serde_json::Value, AdminError> {
        let b = accounts::commands::set_billing_data(&self.writes, account, input).await?;
        json(&BillingDataView::new(
            &b.billing,
            &b.account,
            &b.organisation,
        ))
    }

    /// Signs new tokens with a fresh key; the old one keeps verifying until its tokens expire.
    pub async fn rotate_signing_key(&self) -> Result<String, AdminError> {
        let secrets = self.secrets.as_ref().ok_or(AdminError::NoMasterKey)?;
        let store = &self.writes.store;
        Ok(keys::commands::rotate(store, self.writes.clock.as_ref(), secrets).await?)
    }

    /// The first organisation ever created, if any: the demo one in a standalone install.
    pub async fn first_organisation(&self) -> Result<Option<String>, AdminError> {
        organisations::commands::first(&self.writes.store).await
    }

    pub async fn account_uuids(&self, organisation: &str) -> Result<Vec<String>, AdminError> {
        accounts::commands::uuids_of(&self.writes.store, organisation).await
    }
}

fn json<T: Serialize>(value: &T) -> Result<serde_json::Value, AdminError> {
    serde_json::to_value(value).map_err(AdminError::Encode)
}
