//! The services `coffer` hosts, each on its own SQLite file. A new service adds its line to
//! `start_all` and `MIGRATIONS`; nothing else here changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use coffer_auth::SharedKeys;
use coffer_events::Bus;
use coffer_events::local_bus::{self, LocalBus};
use coffer_http::Module;
use coffer_model::clock::Clock;
use coffer_secrets::Secrets;
use coffer_store::{Migrations, PoolOptions, Store};
use zeroize::Zeroizing;

use crate::directory_copies::DirectoryCopies;
use crate::{data_dir, sealed_file};

/// Every hosted service's migrations, and the bus's.
pub const MIGRATIONS: &[Migrations] = &[
    local_bus::MIGRATIONS,
    coffer_identity::MIGRATIONS,
    coffer_payments::MIGRATIONS,
    coffer_billing::MIGRATIONS,
    coffer_notifications::MIGRATIONS,
    coffer_onboarding::MIGRATIONS,
    coffer_reconciliation::MIGRATIONS,
];

/// The services of one `coffer dev` process.
pub struct Standalone {
    pub modules: Vec<Arc<dyn Module>>,
    /// Identity's operator actions, sharing its outbox.
    pub identity_admin: coffer_identity::admin::Admin,
    /// The other services' copies of identity's directory, for `coffer dev` to wait on.
    pub directory_copies: DirectoryCopies,
}

pub fn database_path(data_dir: &Path, service: &str) -> anyhow::Result<PathBuf> {
    Ok(data_dir::prepare(data_dir)?.join(format!("{service}.db")))
}

/// Opens a service's store and brings its schema up to date.
pub async fn open_url(url: &str, migrations: Migrations) -> anyhow::Result<Store> {
    // Writers on this (the main) runtime, whose threads give way to the HTTP workers'
    // (docs/decisions/reads-before-writes.md), whichever request or worker writes first.
    let store = Store::connect(url, &PoolOptions::default())
        .with_context(|| format!("cannot open the {} database", migrations.service))?
        .with_writers_on(tokio::runtime::Handle::current());
    let migrating = store.clone();
    tokio::task::spawn_blocking(move || migrating.migrate(&migrations))
        .await
        .context("migration task")?
        .with_context(|| format!("cannot migrate the {} database", migrations.service))?;
    Ok(store)
}

pub async fn open(data_dir: &Path, migrations: Migrations) -> anyhow::Result<Store> {
    let path = database_path(data_dir, migrations.service)?;
    open_url(&format!("sqlite://{}", path.display()), migrations).await
}

pub async fn migrate(data_dir: &Path) -> anyhow::Result<Vec<Store>> {
    let mut stores = Vec::new();
    for set in MIGRATIONS {
        stores.push(open(data_dir, *set).await?);
        println!("{}: migrated", set.service);
    }
    Ok(stores)
}

/// Starts every service against its file in `data_dir`, all on one in-process bus.
pub async fn start_all(
    data_dir: &Path,
    clock: Arc<dyn Clock>,
    keys: SharedKeys,
    secrets: &Secrets,
    base_url: &str,
    notifications: coffer_notifications::NotificationsSettings,
    payments: coffer_payments::PaymentsSettings,
) -> anyhow::Result<Standalone> {
    let bus: Arc<dyn Bus> = Arc::new(LocalBus::new(
        open(data_dir, local_bus::MIGRATIONS).await?,
        Arc::clone(&clock),
    ));
    let identity_store = open(data_dir, coffer_identity::MIGRATIONS).await?;
    let identity = coffer_identity::Identity::start(
        identity_store,
        Arc::clone(&clock),
        keys.clone(),
        Arc::clone(&bus),
        secrets.clone(),
        coffer_identity::IdentitySettings {
            // The address `coffer dev` serves on is the one partners reach.
            sso: coffer_identity::sso::SsoSettings {
                issuer: base_url.trim_end_matches('/').to_owned(),
                ..Default::default()
            },
            ..coffer_identity::IdentitySettings::default()
        },
    )
    .await
    .context("identity could not load its signing keys")?;
    let identity_admin = identity.admin();
    let payments_store = open(data_dir, coffer_payments::MIGRATIONS).await?;
    let payments = coffer_payments::Payments::start(
        payments_store.clone(),
        Arc::clone(&clock),
        Arc::clone(&bus),
        coffer_payments::PaymentsSettings {
            public_base_url: base_url.to_owned(),
            fingerprint_key: fingerprint_key(data_dir, secrets)?.to_vec(),
            secrets: Some(secrets.clone()),
            ..payments
        },
    )
    .await
    .context("payments could not seal its connector accounts' keys again")?;
    let billing_store = open(data_dir, coffer_billing::MIGRATIONS).await?;
    let billing = coffer_billing::Billing::new(
        billing_store.clone(),
        Arc::clone(&clock),
        Arc::clone(&bus),
        coffer_billing::BillingSettings::default(),
    );
    // SFTP sources may reach what webhook deliveries may (`--webhook-allow-subnets`).
    let sftp_addresses = notifications.addresses.clone();
    let notifications_store = open(data_dir, coffer_notifications::MIGRATIONS).await?;
    let notifications = coffer_notifications::Notifications::start(
        notifications_store.clone(),
        Arc::clone(&clock),
        Arc::clone(&bus),
        secrets.clone(),
        notifications,
    )
    .await
    .context("notifications could not start")?;
    // The captcha of `coffer dev` is the test one (`onboarding.captcha = test`): dev.rs
    // says so when it starts.
    let onboarding_store = open(data_dir, coffer_onboarding::MIGRATIONS).await?;
    let onboarding = coffer_onboarding::Onboarding::start(
        onboarding_store.clone(),
        Arc::clone(&clock),
        Arc::clone(&bus),
        Arc::new(crate::onboarding_port::InProcessIdentity(
            identity.internal(),
        )),
        Arc::new(coffer_onboarding::captcha::TestCaptcha),
        secrets.clone(),
        coffer_onboarding::OnboardingSettings::default(),
    )
    .await
    .context("onboarding could not seal its stored secrets again")?;
    let reconciliation_store = open(data_dir, coffer_reconciliation::MIGRATIONS).await?;
    let reconciliation = coffer_reconciliation::Reconciliation::start(
        reconciliation_store.clone(),
        Arc::clone(&clock),
        Arc::clone(&bus),
        coffer_reconciliation::ReconciliationSettings {
            secrets: Some(secrets.clone()),
            objects: Some(local_uploads(data_dir, secrets, base_url)?),
            sftp_addresses,
            ..coffer_reconciliation::ReconciliationSettings::default()
        },
    )
    .await
    .context("reconciliation could not seal its SFTP secrets again")?;
    Ok(Standalone {
        modules: vec![
            Arc::new(identity),
            Arc::new(payments),
            Arc::new(billing),
            Arc::new(notifications),
            Arc::new(onboarding),
            Arc::new(reconciliation),
        ],
        identity_admin,
        directory_copies: DirectoryCopies::new(vec![
            ("payments", payments_store),
            ("billing", billing_store),
            ("notifications", notifications_store),
            ("onboarding", onboarding_store),
            ("reconciliation", reconciliation_store),
        ]),
    })
}

/// The card fingerprint key of this data directory, made on first start: random, and then
/// stable, so a card keeps its fingerprint across restarts.
fn fingerprint_key(data_dir: &Path, secrets: &Secrets) -> anyhow::Result<Zeroizing<Vec<u8>>> {
    sealed_file::load_or_create(
        &data_dir.join("fingerprint.key"),
        "payments.fingerprint_key",
        secrets,
        || {
            let key = format!(
                "{}{}",
                uuid::Uuid::new_v4().simple(),
                uuid::Uuid::new_v4().simple()
            );
            Zeroizing::new(key.into_bytes())
        },
    )
}

/// `coffer dev`'s upload store: bank files are posted to this process (SPEC.md's upload
/// procedure, the same signed forms as S3's) and kept under `<data dir>/uploads`. Its key
/// pair is made on first start and kept sealed beside the databases.
fn local_uploads(
    data_dir: &Path,
    secrets: &Secrets,
    base_url: &str,
) -> anyhow::Result<coffer_reconciliation::object_store::ObjectStore> {
    let secret = sealed_file::load_or_create(
        &data_dir.join("uploads.key"),
        "reconciliation.upload_key",
        secrets,
        || Zeroizing::new(uuid::Uuid::new_v4().simple().to_string().into_bytes()),
    )?;
    let secret = String::from_utf8(secret.to_vec()).context("uploads.key is not text")?;
    let endpoint = url::Url::parse(base_url).context("the address coffer dev serves on")?;
    let signer = coffer_uploads::Store::new(
        endpoint,
        coffer_reconciliation::object_store::LOCAL_BUCKET,
        "us-east-1",
        "coffer-dev",
        secret,
    )
    .context("the local upload store")?;
    let root = data_dir.join("uploads");
    coffer_reconciliation::object_store::local::clear_incoming(&root)
        .context("clearing uploads a stopped process left unfinished")?;
    Ok(coffer_reconciliation::object_store::ObjectStore::Local { root, signer })
}
