//! Configuration use cases: creating one (the operator), and reading one.

use coffer_store::Store;
use uuid::Uuid;

use super::domain::{Configuration, ConfigurationInput};
use super::store::{self as configurations, ConfigurationRow};
use crate::error::OnboardingError;

impl ConfigurationRow {
    pub(crate) fn labels(&self) -> Vec<String> {
        serde_json::from_str(&self.account_labels).unwrap_or_default()
    }

    pub(crate) fn view(&self) -> Configuration {
        Configuration {
            uuid: self.uuid.clone(),
            partner_uuid: self.partner_uuid.clone(),
            account_labels: self.labels(),
            default_locale: self.default_locale.clone(),
            created: self.created,
        }
    }
}

/// Creates a configuration for a partner the caller has checked exists (the operator's
/// CLI reads identity for it).
pub async fn create(
    store: &Store,
    now: i64,
    input: ConfigurationInput,
) -> Result<Configuration, OnboardingError> {
    let partner = input.partner_uuid;
    let (labels, locale) = input.validate().map_err(OnboardingError::invalid_all)?;
    let row = ConfigurationRow {
        uuid: Uuid::new_v4().to_string(),
        partner_uuid: partner.to_string(),
        account_labels: serde_json::to_string(&labels).unwrap_or_else(|_| "[]".into()),
        default_locale: locale,
        created: now,
    };
    let stored = row.clone();
    store
        .query(move |c| configurations::insert(c, &stored))
        .await?;
    Ok(row.view())
}

pub(crate) async fn find(
    store: &Store,
    uuid: &str,
) -> Result<Option<ConfigurationRow>, OnboardingError> {
    let key = uuid.to_owned();
    Ok(store.query(move |c| configurations::find(c, &key)).await?)
}
