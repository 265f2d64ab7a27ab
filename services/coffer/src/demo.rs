//! The demo tenant every new install gets: an organisation with two accounts, addresses,
//! metadata, billing data and an API client, recorded in `credentials.json`.

use std::collections::BTreeMap;
use std::path::Path;

use coffer_identity::admin::{Admin, ClientAccess};
use coffer_identity::domain::directory::{AddressInput, BillingInput, OrganisationInput};
use uuid::Uuid;

use crate::credentials::{self, Credentials};

/// The demo client, as [`ensure`] found it: made by this call, so its secret has been shown
/// nowhere yet, or kept from an earlier start.
pub enum Demo {
    Made(Credentials),
    Kept(Credentials),
}

impl Demo {
    pub fn credentials(&self) -> &Credentials {
        match self {
            Demo::Made(c) | Demo::Kept(c) => c,
        }
    }
}

/// Seeds the demo organisation on first start; later starts keep the data and the client.
pub async fn ensure(admin: &Admin, data_dir: &Path, base_url: &str) -> anyhow::Result<Demo> {
    if let Some(mut existing) = credentials::read(data_dir)? {
        if existing.base_url != base_url {
            existing.base_url = base_url.to_owned();
            credentials::write(data_dir, &existing)?;
        }
        return Ok(Demo::Kept(existing));
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
    Ok(Demo::Made(credentials))
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
