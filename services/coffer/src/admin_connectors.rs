//! `coffer admin connector-account set`: an account's account at a payment provider, its
//! keys sealed into payments' database with the master keys the payments service opens
//! them with (the data directory's, or `COFFER_SECRETS__KEYS`); and `coffer admin profile
//! set`, a payment method profile that connector account serves.

use std::io::{BufRead, Read};

use anyhow::Context;
use coffer_model::clock::{Clock, SystemClock};
use coffer_payments::connector_accounts::commands::set;
use coffer_payments::connector_accounts::domain::{Mode, Setting};
use coffer_payments::connector_accounts::store as connector_accounts;
use coffer_payments::profiles::commands as profiles;
use coffer_payments::profiles::domain::{ProfileSetting, Serving};
use zeroize::Zeroizing;

use crate::cli::{AdminArgs, ConnectorAccountCommand, ProfileCommand};
use crate::{master_keys, services};

pub async fn run(
    command: &ConnectorAccountCommand,
    args: &AdminArgs,
) -> anyhow::Result<serde_json::Value> {
    let ConnectorAccountCommand::Set {
        account,
        name,
        provider,
        mode,
        publishable_key,
    } = command;
    let (secret_key, webhook_secret) = secrets_from_stdin()?;
    let store = payments_store(args).await?;
    // A distributed install's keys are its settings', never a data directory's file.
    let settings_only = args.payments_database_url.is_some();
    anyhow::ensure!(
        !settings_only || std::env::var("COFFER_SECRETS__KEYS").is_ok_and(|k| !k.trim().is_empty()),
        "the keys are sealed with the master keys: set COFFER_SECRETS__KEYS (and \
         COFFER_SECRETS__CURRENT) as the payments service has them"
    );
    let keys = master_keys::load(&args.data_dir)?.context(
        "no master keys: `coffer dev` makes them on first start, or set COFFER_SECRETS__KEYS",
    )?;
    let setting = Setting {
        account_uuid: account.to_string(),
        name: name.clone(),
        provider: provider.clone(),
        mode: mode.clone(),
        secret_key: secret_key.as_deref().map(|k| k.to_string()),
        webhook_secret: webhook_secret.as_deref().map(|s| s.to_string()),
        publishable_key: publishable_key.clone(),
    };
    let actor = format!(
        "coffer admin ({})",
        std::env::var("USER").unwrap_or_else(|_| "operator".to_owned())
    );
    let view = set(&store, &keys, SystemClock.unix(), setting, &actor)
        .await
        .context("setting the connector account")?;
    Ok(serde_json::to_value(view)?)
}

/// `coffer admin profile set`: the connector account is found by its name, and gives the
/// profile its provider and mode.
pub async fn profile(
    command: &ProfileCommand,
    args: &AdminArgs,
) -> anyhow::Result<serde_json::Value> {
    let ProfileCommand::Set {
        account,
        name,
        method,
        connector_account,
        default,
    } = command;
    let store = payments_store(args).await?;
    let (key, wanted) = (account.to_string(), connector_account.clone());
    let found = store
        .query(move |db| connector_accounts::find(db, &key, &wanted))
        .await?
        .with_context(|| {
            format!(
                "the account has no connector account named {connector_account:?}: set it first"
            )
        })?;
    let serving = Serving {
        uuid: found.uuid,
        provider: found.provider.as_str(),
        live: found.mode == Mode::Live,
    };
    let setting = ProfileSetting {
        account_uuid: account.to_string(),
        name: name.clone(),
        payment_method: method.clone(),
        default: *default,
    };
    let profile = profiles::set(&store, SystemClock.unix(), setting, serving)
        .await
        .context("setting the profile")?;
    Ok(serde_json::to_value(profile)?)
}

/// Payments' database, which must exist: nothing is made here, so a mistyped data
/// directory never ends up holding a sealed key beside a master key no service has.
async fn payments_store(args: &AdminArgs) -> anyhow::Result<coffer_store::Store> {
    Ok(match &args.payments_database_url {
        Some(url) => services::open_url(url, coffer_payments::MIGRATIONS).await?,
        None => {
            let path = services::database_path(&args.data_dir, "payments")?;
            anyhow::ensure!(
                path.exists(),
                "{} does not exist: start `coffer dev` (or `coffer migrate`) with this data \
                 directory first, or name --payments-database-url",
                path.display()
            );
            services::open(&args.data_dir, coffer_payments::MIGRATIONS).await?
        }
    })
}

type Secret = Option<Zeroizing<String>>;

/// The secret key (line 1) and the webhook secret (line 2); an empty or missing line keeps
/// what was set before. Lines are bounded so a stray file piped in cannot fill memory.
fn secrets_from_stdin() -> anyhow::Result<(Secret, Secret)> {
    let mut lines = std::io::stdin().lock();
    let mut read = || -> anyhow::Result<Secret> {
        let mut line = Zeroizing::new(String::new());
        let mut limited = Read::take(&mut lines, 1024);
        limited
            .read_line(&mut line)
            .context("reading standard input")?;
        let trimmed = line.trim();
        Ok((!trimmed.is_empty()).then(|| Zeroizing::new(trimmed.to_owned())))
    };
    Ok((read()?, read()?))
}
