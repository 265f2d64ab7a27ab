//! `coffer admin`: operator commands against identity's database. They print JSON.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;

use coffer_events::Outbox;
use coffer_identity::admin::{Admin, ClientAccess};
use coffer_identity::domain::directory::{AddressInput, BillingInput, OrganisationInput};
use coffer_identity::partners::PartnerInput;
use coffer_identity::users::UserInput;
use coffer_model::clock::SystemClock;
use serde_json::json;

use crate::cli::*;
use crate::{master_keys, services};

pub async fn run(args: AdminArgs) -> anyhow::Result<()> {
    // Master keys are files and settings, not rows: no database is opened for them.
    if let AdminCommand::Secrets(command) = &args.command {
        let out = secrets(command, &args.data_dir)?;
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    // Payouts, connector accounts and profiles are payments' rows: identity's database is
    // not opened for them.
    if let AdminCommand::Payouts(command) = &args.command {
        let out = crate::admin_payouts::run(command, &args).await?;
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    if let AdminCommand::ConnectorAccount(command) = &args.command {
        let out = crate::admin_connectors::run(command, &args).await?;
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    if let AdminCommand::Profile(command) = &args.command {
        let out = crate::admin_connectors::profile(command, &args).await?;
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let store = match &args.identity_database_url {
        Some(url) => services::open_url(url, coffer_identity::MIGRATIONS).await?,
        None => services::open(&args.data_dir, coffer_identity::MIGRATIONS).await?,
    };
    let clock: Arc<dyn coffer_model::clock::Clock> = Arc::new(SystemClock);
    // The events go to identity's outbox; the relay of the running service publishes them.
    let admin = Admin::new(
        store,
        Arc::clone(&clock),
        Outbox::new(args.events_prefix.clone(), Arc::clone(&clock)),
    );
    let out = match args.command {
        AdminCommand::Organisation(OrganisationCommand::Create {
            name,
            merchant_category_code,
            locale,
            approval_status,
        }) => {
            admin
                .create_organisation(OrganisationInput {
                    name,
                    approval_status,
                    merchant_category_code,
                    locale,
                })
                .await?
        }
        AdminCommand::Account(AccountCommand::Create { organisation, name }) => {
            admin.create_account(organisation, &name).await?
        }
        AdminCommand::Client(ClientCommand::Create {
            organisation,
            platform,
        }) => {
            let access = if platform {
                ClientAccess::Platform
            } else {
                ClientAccess::Organisations(organisation)
            };
            serde_json::to_value(admin.create_client(access).await?)?
        }
        AdminCommand::Partner(PartnerCommand::Create { name, redirect_uri }) => {
            serde_json::to_value(
                admin
                    .create_partner(PartnerInput {
                        name,
                        redirect_uris: redirect_uri,
                    })
                    .await?,
            )?
        }
        AdminCommand::User(UserCommand::Create {
            email,
            password,
            name,
            organisation,
            locale,
        }) => serde_json::to_value(
            admin
                .create_user(UserInput {
                    email,
                    name,
                    organisation_uuid: organisation,
                    locale,
                    password,
                })
                .await?,
        )?,
        AdminCommand::OnboardingConfiguration(OnboardingConfigurationCommand::Create {
            partner,
            account_label,
            locale,
        }) => {
            if !admin.partner_exists(partner).await? {
                anyhow::bail!("no partner {partner}: make one with `coffer admin partner create`");
            }
            let store = match &args.onboarding_database_url {
                Some(url) => services::open_url(url, coffer_onboarding::MIGRATIONS).await?,
                None => services::open(&args.data_dir, coffer_onboarding::MIGRATIONS).await?,
            };
            let input = coffer_onboarding::configurations::ConfigurationInput {
                partner_uuid: partner,
                account_labels: account_label,
                default_locale: locale,
            };
            serde_json::to_value(
                coffer_onboarding::configurations::commands::create(&store, clock.unix(), input)
                    .await?,
            )?
        }
        AdminCommand::User(UserCommand::SetPassword { email, password }) => {
            serde_json::to_value(admin.set_user_password(&email, password).await?)?
        }
        AdminCommand::Address(AddressCommand::Add {
            owner,
            address,
            kind,
        }) => {
            let input = address_input(address, kind);
            match (owner.organisation, owner.account) {
                (Some(o), _) => admin.add_organisation_address(o, input).await?,
                (None, Some(a)) => admin.add_account_address(a, input).await?,
                (None, None) => anyhow::bail!("give --organisation or --account"),
            }
        }
        AdminCommand::Metadata(MetadataCommand::Set { owner, entries }) => {
            let Some(uuid) = owner.organisation.or(owner.account) else {
                anyhow::bail!("give --organisation or --account");
            };
            let entries: BTreeMap<String, String> = entries.into_iter().collect();
            serde_json::to_value(admin.set_metadata(uuid, entries).await?)?
        }
        AdminCommand::BillingData(BillingCommand::Set {
            account,
            account_holder,
            iban,
            vat_number,
            recipient_emails,
            address,
        }) => {
            let input = BillingInput {
                account_holder,
                iban,
                vat_number,
                recipient_emails,
                address: address_input(address, "billing".into()),
            };
            admin.set_billing_data(account, input).await?
        }
        AdminCommand::Demo { base_url } => {
            let demo = crate::demo::ensure(&admin, &args.data_dir, &base_url).await?;
            serde_json::to_value(demo.credentials())?
        }
        AdminCommand::Keys(KeysCommand::Rotate) => {
            let secrets = master_keys::load(&args.data_dir)?.context(
                "signing keys are sealed with the master keys: set COFFER_SECRETS__KEYS \
                 (and COFFER_SECRETS__CURRENT) as the identity service has them",
            )?;
            let admin = admin.with_secrets(secrets);
            json!({ "kid": admin.rotate_signing_key().await? })
        }
        AdminCommand::Secrets(command) => secrets(&command, &args.data_dir)?,
        AdminCommand::Payouts(_) | AdminCommand::ConnectorAccount(_) | AdminCommand::Profile(_) => {
            unreachable!("answered before identity's database is opened")
        }
    };
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

fn secrets(command: &SecretsCommand, data_dir: &Path) -> anyhow::Result<serde_json::Value> {
    Ok(match command {
        SecretsCommand::Rotate => json!({ "kid": master_keys::rotate(data_dir)? }),
        SecretsCommand::NewKey => {
            let (kid, entry) = master_keys::new_entry()?;
            json!({ "kid": kid, "entry": entry })
        }
    })
}

fn address_input(a: AddressFields, kind: String) -> AddressInput {
    AddressInput {
        address_line1: a.line1,
        address_line2: a.line2,
        postal_code: a.postal_code,
        city: a.city,
        country_code: a.country,
        kind,
    }
}
