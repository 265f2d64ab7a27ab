//! `serve` where another step migrates (the migration Jobs of k8s/, `serve.migrate =
//! false`): it applies nothing, and opens its port only once every migration its code
//! expects is applied, so a pod never serves on a schema older than its code.

use std::time::Duration;

use anyhow::Context;
use coffer_store::{Migrations, Store};

/// How often the schema is looked at again while migrations are pending.
const EVERY: Duration = Duration::from_secs(2);

/// Waits until `migrations` has nothing pending, for at most `wait`.
pub(crate) async fn wait_for(
    store: &Store,
    migrations: Migrations,
    wait: Duration,
) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut told = false;
    loop {
        let checking = store.clone();
        // A database that is not up yet counts as pending: the Job waits on it too.
        let pending = tokio::task::spawn_blocking(move || checking.pending_migrations(&migrations))
            .await
            .context("migration check task")?;
        match pending {
            Ok(0) => {
                tracing::info!("{} database is migrated", migrations.service);
                return Ok(());
            }
            Ok(n) if !told => {
                told = true;
                tracing::info!(
                    pending = n,
                    "waiting for the {} migrations to be applied (serve.migrate is false: the migration Job applies them)",
                    migrations.service
                );
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the {} schema yet", migrations.service)
            }
        }
        if tokio::time::Instant::now() + EVERY > deadline {
            anyhow::bail!(
                "the {} database still has migrations pending after {} s: run `migrate` (the migration Job), or set serve.migrate to let serve apply them",
                migrations.service,
                wait.as_secs()
            );
        }
        tokio::time::sleep(EVERY).await;
    }
}
