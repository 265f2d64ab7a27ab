//! Which connector serves a profile, and so each payment, refund and source made through
//! it: Coffer's test provider, or the Stripe connector of the profile's connector account,
//! opened with that account's secret key. Opened connectors are kept a short while, so a
//! rotated key is used within [`KEPT`] without a lookup per call.

use std::sync::Arc;
use std::time::Duration;

use coffer_secrets::Secrets;
use coffer_store::{Store, TtlCache};

use crate::connector_accounts::commands::{secret_key, webhook_secrets};
use crate::connector_accounts::domain::{Mode, Provider};
use crate::connector_accounts::store as accounts;
use crate::connectors::metered::Metered;
use crate::connectors::metrics::ConnectorMetrics;
use crate::connectors::stripe::client::StripeClient;
use crate::connectors::stripe::connector::StripeConnector;
use crate::connectors::stripe::page_access::PageAccess;
use crate::connectors::test_psp::TestPsp;
use crate::shared::connector::{Connector, ConnectorError, TEST_PROVIDER};
use crate::shared::profile::Profile;
use crate::shared::profile_store;
use crate::shared::record::Payment;

/// How long an opened connector (with its key) and a profile's connector account are kept.
const KEPT: Duration = Duration::from_secs(30);
/// Connector accounts and profiles kept at once.
const CAPACITY: usize = 10_000;

/// How connectors to providers outside the process are made.
#[derive(Clone)]
pub struct ProviderSettings {
    /// Stripe's API (`https://api.stripe.com`; localstripe in tests).
    pub stripe_api: String,
    /// Whether a live Stripe account may be sent card numbers (`payments.raw_card_data`).
    pub raw_card_data: bool,
    /// The longest any one call to a provider may take.
    pub timeout: Duration,
}

impl Default for ProviderSettings {
    fn default() -> Self {
        Self {
            stripe_api: "https://api.stripe.com".into(),
            raw_card_data: false,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Stripe's browser script for the API at `api`: Stripe's own (`js.stripe.com`) for any
/// https address (Stripe's, or a proxy in front of it), and the one a test server on this
/// machine (localstripe) serves at its `/js.stripe.com/v3/`.
pub fn stripe_script(api: &str) -> String {
    let api = api.trim_end_matches('/');
    if api.starts_with("http://") {
        // stripe_api_refused allows plain http to loopback only: a test server.
        format!("{api}/js.stripe.com/v3/")
    } else {
        "https://js.stripe.com/v3/".into()
    }
}

/// Why Stripe's API address is refused, if it is: a secret key travels with every call, so
/// only https, or plain http to this machine (a test server such as localstripe).
pub fn stripe_api_refused(url: &str) -> Option<&'static str> {
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"];
    let host_follows = |prefix: &str| {
        url.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/']))
    };
    let https = url
        .strip_prefix("https://")
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
    let ok =
        (https || loopback.iter().any(|p| host_follows(p))) && !url.contains(char::is_whitespace);
    (!ok).then_some("must be an https URL (plain http only to 127.0.0.1, localhost or [::1])")
}

pub(crate) struct ConnectorRegistry {
    test: Arc<TestPsp>,
    /// The test provider, measured like every other.
    test_metered: Arc<dyn Connector>,
    metrics: ConnectorMetrics,
    store: Store,
    /// The master keys connector accounts' secret keys are sealed with; without them no
    /// connector account can be opened, and only the test provider serves.
    secrets: Option<Secrets>,
    settings: ProviderSettings,
    /// Coffer's public address, where the donor's payment page is served.
    public_base_url: String,
    /// By account and connector account, so an entry only ever serves the account it was
    /// opened for.
    opened: TtlCache<(String, String), Arc<dyn Connector>>,
    /// A profile's connector account, by the profile's account and name (how payments
    /// name their profile).
    profiles: TtlCache<(String, String), Option<String>>,
}

fn unavailable(why: impl Into<String>) -> ConnectorError {
    ConnectorError::Unreachable(why.into())
}

impl ConnectorRegistry {
    pub fn new(
        test: Arc<TestPsp>,
        store: Store,
        secrets: Option<Secrets>,
        settings: ProviderSettings,
        public_base_url: String,
        metrics: ConnectorMetrics,
    ) -> Self {
        Self {
            public_base_url,
            test_metered: Arc::new(Metered::new(test.clone(), metrics.clone())),
            metrics,
            test,
            store,
            secrets,
            settings,
            opened: TtlCache::new(CAPACITY, KEPT),
            profiles: TtlCache::new(CAPACITY, KEPT),
        }
    }

    /// Told when an outcome has been committed (the test provider's faults listen).
    pub fn committed(&self) {
        self.test.committed();
    }

    /// The connector of a profile.
    pub async fn for_profile(
        &self,
        profile: &Profile,
    ) -> Result<Arc<dyn Connector>, ConnectorError> {
        self.serving(
            &profile.provider,
            &profile.account_uuid,
            profile.connector_account_uuid.as_deref(),
        )
        .await
    }

    /// The connector that charged a payment (and refunds it).
    pub async fn for_payment(
        &self,
        payment: &Payment,
    ) -> Result<Arc<dyn Connector>, ConnectorError> {
        self.for_record(
            &payment.payment_provider,
            &payment.account_uuid,
            &payment.profile,
        )
        .await
    }

    /// The connector of a payment, a refund of it or a source, by what it recorded: its
    /// provider, and its account's profile of that name.
    pub async fn for_record(
        &self,
        provider: &str,
        account: &str,
        profile: &str,
    ) -> Result<Arc<dyn Connector>, ConnectorError> {
        if provider == TEST_PROVIDER {
            return Ok(self.test_metered.clone());
        }
        let key = (account.to_owned(), profile.to_owned());
        let connector_account = match self.profiles.get(&key) {
            Some(known) => known,
            None => {
                let (account, name) = key.clone();
                let found = self
                    .store
                    .query(move |db| profile_store::find_by_name(db, &account, &name))
                    .await
                    .map_err(|e| unavailable(e.to_string()))?
                    .and_then(|p| p.connector_account_uuid);
                self.profiles.insert(key, found.clone());
                found
            }
        };
        self.serving(provider, account, connector_account.as_deref())
            .await
    }

    /// The connector of `account`'s connector account `connector_account`. A profile keeps
    /// its connector account (profiles/commands.rs), so what a payment's profile names now
    /// is what charged it.
    async fn serving(
        &self,
        provider: &str,
        account: &str,
        connector_account: Option<&str>,
    ) -> Result<Arc<dyn Connector>, ConnectorError> {
        if provider == TEST_PROVIDER {
            return Ok(self.test_metered.clone());
        }
        let Some(uuid) = connector_account else {
            return Err(unavailable(format!(
                "a {provider} profile names no connector account"
            )));
        };
        let key = (account.to_owned(), uuid.to_owned());
        if let Some(opened) = self.opened.get(&key) {
            return Ok(opened);
        }
        let opened = self.open(uuid, account).await?;
        self.opened.insert(key, opened.clone());
        Ok(opened)
    }

    async fn open(&self, uuid: &str, account: &str) -> Result<Arc<dyn Connector>, ConnectorError> {
        let secrets = self
            .secrets
            .as_ref()
            .ok_or_else(|| unavailable("no master keys to open connector accounts with"))?;
        let id = uuid.to_owned();
        let row = self
            .store
            .query(move |db| accounts::find_by_uuid(db, &id))
            .await
            .map_err(|e| unavailable(e.to_string()))?
            .ok_or_else(|| unavailable("the profile's connector account does not exist"))?;
        // Only the account's own connector account ever charges for it.
        if row.account_uuid != account {
            return Err(unavailable(
                "the profile names another account's connector account",
            ));
        }
        let key = secret_key(secrets, &row).map_err(|e| unavailable(e.to_string()))?;
        let opened: Arc<dyn Connector> = match row.provider {
            Provider::Stripe => {
                let client =
                    StripeClient::new(&self.settings.stripe_api, &key, self.settings.timeout)
                        .map_err(|e| unavailable(e.to_string()))?;
                let page = row
                    .publishable_key
                    .clone()
                    .map(|publishable_key| PageAccess {
                        base_url: self.public_base_url.clone(),
                        publishable_key,
                        script: stripe_script(&self.settings.stripe_api),
                        api: self.settings.stripe_api.clone(),
                    });
                Arc::new(StripeConnector::new(
                    client,
                    row.mode == Mode::Live,
                    self.settings.raw_card_data,
                    page,
                ))
            }
        };
        Ok(Arc::new(Metered::new(opened, self.metrics.clone())))
    }

    /// The webhook secrets a connector account's notifications are signed with: the
    /// current one and the one before it (empty when none was set).
    pub fn webhook_secrets(
        &self,
        row: &accounts::ConnectorAccountRow,
    ) -> Result<Vec<zeroize::Zeroizing<Vec<u8>>>, ConnectorError> {
        let secrets = self
            .secrets
            .as_ref()
            .ok_or_else(|| unavailable("no master keys to open connector accounts with"))?;
        webhook_secrets(secrets, row).map_err(|e| unavailable(e.to_string()))
    }

    /// The providers' metrics (connectors/metrics.rs).
    pub fn metrics(&self) -> &ConnectorMetrics {
        &self.metrics
    }
}
