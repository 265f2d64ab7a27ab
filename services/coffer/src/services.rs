//! The services `coffer` hosts, each on its own SQLite file. A new service adds its line to
//! `start_all` and `MIGRATIONS`; nothing else here changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use coffer_auth::SharedKeys;
use coffer_http::Module;
use coffer_model::clock::Clock;
use coffer_store::{Migrations, PoolOptions, Store};

/// Every hosted service's migrations, by service name.
pub const MIGRATIONS: &[Migrations] = &[coffer_identity::MIGRATIONS];

pub fn database_path(data_dir: &Path, service: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create the data directory {}", data_dir.display()))?;
    let dir = data_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve the data directory {}", data_dir.display()))?;
    Ok(dir.join(format!("{service}.db")))
}

/// Opens a service's store and brings its schema up to date.
pub async fn open_url(url: &str, migrations: Migrations) -> anyhow::Result<Store> {
    let store = Store::connect(url, &PoolOptions::default())
        .with_context(|| format!("cannot open the {} database", migrations.service))?;
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

/// Starts every service against its file in `data_dir`.
pub async fn start_all(
    data_dir: &Path,
    clock: Arc<dyn Clock>,
    keys: SharedKeys,
) -> anyhow::Result<Vec<Arc<dyn Module>>> {
    let identity_store = open(data_dir, coffer_identity::MIGRATIONS).await?;
    let identity = coffer_identity::Identity::start(
        identity_store,
        Arc::clone(&clock),
        keys.clone(),
        coffer_identity::IdentitySettings::default(),
    )
    .await
    .context("identity could not load its signing keys")?;
    Ok(vec![Arc::new(identity)])
}
