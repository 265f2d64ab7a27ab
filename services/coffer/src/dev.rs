//! `coffer dev`: every service on one port, from SQLite files under the data directory.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use coffer_auth::{KeySource, SharedKeys, Verifier};
use coffer_http::config::{LogFormat, LogSettings};
use coffer_http::{AppContext, Metrics};
use coffer_identity::admin::{Admin, ClientAccess};
use coffer_identity::domain::directory::{AddressInput, BillingInput, OrganisationInput};
use coffer_model::clock::{Clock, SystemClock};
use uuid::Uuid;

use crate::cli::DevArgs;
use crate::credentials::{self, Credentials};
use crate::services;

pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    let format = match args.log_format.as_str() {
        "json" => LogFormat::Json,
        "text" => LogFormat::Text,
        other => anyhow::bail!("--log-format must be json or text, not {other:?}"),
    };
    coffer_http::telemetry::init(&LogSettings {
        level: "info".into(),
        format,
    });
    let listen: SocketAddr = args.listen.parse().with_context(|| {
        format!(
            "--listen {:?} is not an address such as 127.0.0.1:8080",
            args.listen
        )
    })?;

    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let keys = SharedKeys::default();
    let standalone = services::start_all(&args.data_dir, Arc::clone(&clock), keys.clone()).await?;
    let (modules, admin) = (standalone.modules, standalone.identity_admin);

    let listener =
        TcpListener::bind(listen).with_context(|| format!("cannot listen on {listen}"))?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let credentials = ensure_demo(&admin, &args.data_dir, &base_url).await?;
    announce(&credentials, &args.data_dir);

    let workers: Vec<_> = modules.iter().flat_map(|m| m.spawn_workers()).collect();
    let ctx = AppContext {
        modules,
        verifier: Verifier::new(KeySource::Shared(keys), "coffer", clock),
        metrics: Metrics::new()?,
        body_limit: coffer_http::body::DEFAULT_LIMIT,
    };
    let threads = if args.workers == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        args.workers
    };
    // The server stops on SIGINT and SIGTERM, finishing requests in flight.
    coffer_http::serve(listener, ctx, threads)?.await?;
    for worker in workers {
        worker.abort();
    }
    Ok(())
}

/// Seeds the demo organisation on first start; later starts keep the data and the client.
async fn ensure_demo(
    admin: &Admin,
    data_dir: &Path,
    base_url: &str,
) -> anyhow::Result<Credentials> {
    if let Some(mut existing) = credentials::read(data_dir)? {
        if existing.base_url != base_url {
            existing.base_url = base_url.to_owned();
            credentials::write(data_dir, &existing)?;
        }
        return Ok(existing);
    }
    let organisation = match admin.first_organisation().await? {
        Some(uuid) => uuid.parse::<Uuid>()?,
        None => seed(admin).await?,
    };
    let client = admin
        .create_client(ClientAccess::Organisations(vec![organisation]))
        .await?;
    let credentials = Credentials {
        base_url: base_url.to_owned(),
        client_id: client.client_id,
        client_secret: client.client_secret,
        organisation_uuid: organisation.to_string(),
        account_uuids: admin.account_uuids(&organisation.to_string()).await?,
    };
    credentials::write(data_dir, &credentials)?;
    Ok(credentials)
}

fn address(kind: &str, line1: &str, postal_code: &str, city: &str) -> AddressInput {
    AddressInput {
        address_line1: line1.into(),
        address_line2: String::new(),
        postal_code: postal_code.into(),
        city: city.into(),
        country_code: "CH".into(),
        kind: kind.into(),
    }
}

async fn seed(admin: &Admin) -> anyhow::Result<Uuid> {
    let org = admin
        .create_organisation(OrganisationInput {
            name: "Coffer Demo Foundation".into(),
            approval_status: Some("approved".into()),
            merchant_category_code: Some("8398".into()),
            locale: Some("de_CH".into()),
        })
        .await?;
    let organisation: Uuid = org["uuid"].as_str().unwrap_or_default().parse()?;
    admin
        .add_organisation_address(
            organisation,
            address("main", "Limmatquai 1", "8001", "Zürich"),
        )
        .await?;
    admin
        .set_metadata(
            organisation,
            BTreeMap::from([("source".to_owned(), "coffer dev".to_owned())]),
        )
        .await?;
    for (name, iban) in [
        ("General donations", "CH93 0076 2011 6238 5295 7"),
        ("Emergency appeal", "CH56 0483 5012 3456 7800 9"),
    ] {
        let account = admin.create_account(organisation, name).await?;
        let account: Uuid = account["uuid"].as_str().unwrap_or_default().parse()?;
        admin
            .add_account_address(account, address("billing", "Marktgasse 5", "3011", "Bern"))
            .await?;
        admin
            .set_metadata(
                account,
                BTreeMap::from([("purpose".to_owned(), name.to_lowercase())]),
            )
            .await?;
        admin
            .set_billing_data(
                account,
                BillingInput {
                    account_holder: "Coffer Demo Foundation".into(),
                    iban: iban.into(),
                    vat_number: "CHE-123.456.789 MWST".into(),
                    recipient_emails: vec!["finance@demo.coffer.invalid".into()],
                    address: address("billing", "Marktgasse 5", "3011", "Bern"),
                },
            )
            .await?;
    }
    Ok(organisation)
}

fn announce(c: &Credentials, data_dir: &Path) {
    println!("Coffer is serving at {}", c.base_url);
    println!("  client_id:         {}", c.client_id);
    println!("  client_secret:     {}", c.client_secret);
    println!("  organisation_uuid: {}", c.organisation_uuid);
    println!("  account_uuids:     {}", c.account_uuids.join(", "));
    println!("  (also in {})", credentials::path(data_dir).display());
}
