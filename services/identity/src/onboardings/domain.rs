//! What an onboarding asks identity to make, as the onboarding service sends it: every
//! uuid is chosen by the sender, so asking again names the same objects.

use coffer_model::validation::{FieldError, Violations};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::accounts::domain::{BillingInput, account_name};
use crate::address::AddressInput;
use crate::directory::ApprovalStatus;
use crate::organisations::domain::{OrganisationInput, ValidOrganisation};
use crate::users::domain::{UserInput, ValidUser};

/// Accounts one onboarding may make.
pub const MAX_ACCOUNTS: usize = 20;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct AddressFields {
    pub address_line1: String,
    #[serde(default)]
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct BillingInformation {
    pub iban: String,
    #[serde(default)]
    pub bank_name: String,
    pub account_holder: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct OnboardedOrganisation {
    pub uuid: Uuid,
    pub name: String,
    pub merchant_category_code: Option<String>,
    /// language_TERRITORY, as organisations carry it.
    pub locale: Option<String>,
    pub main_address: AddressFields,
    pub billing_address: AddressFields,
    pub billing_information: Option<BillingInformation>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct OnboardedAccount {
    pub uuid: Uuid,
    /// The configuration's label; also the account's name.
    pub label: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct OnboardedUser {
    pub uuid: Uuid,
    pub email: String,
    pub name: String,
    /// en, de, fr or it.
    pub locale: Option<String>,
    /// None: the user has no password until an operator sets one.
    pub password: Option<String>,
}

/// POST /internal/onboardings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[schema(example = json!({
    "organisation": {"uuid": "0b6a3c38-3b1f-4d67-9a0e-2f0d3e9b8c11", "name": "Alpine Aid",
        "merchant_category_code": "8398", "locale": null,
        "main_address": {"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"},
        "billing_address": {"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"},
        "billing_information": {"iban": "CH93 0076 2011 6238 5295 7", "bank_name": "Alpine Bank", "account_holder": "Alpine Aid"}},
    "accounts": [{"uuid": "1f3e5a7c-9b2d-4e6f-8a0c-3e5f7a9b1d2c", "label": "Donations"}],
    "user": {"uuid": "8d0f8a0e-3f8b-4d3c-9c8f-2d9a6c1e4b77", "email": "ann@example.org", "name": "Ann Example", "locale": "de", "password": null}
}))]
pub struct OnboardingRequest {
    pub organisation: OnboardedOrganisation,
    pub accounts: Vec<OnboardedAccount>,
    pub user: OnboardedUser,
}

/// The request checked, in the forms identity's features store.
pub struct ValidOnboarding {
    pub organisation_uuid: Uuid,
    pub organisation: ValidOrganisation,
    pub main_address: AddressInput,
    pub billing_address: AddressInput,
    pub billing: Option<BillingInput>,
    pub accounts: Vec<(Uuid, String)>,
    pub user_uuid: Uuid,
    pub user: ValidUser,
}

fn prefixed(prefix: &str, errors: Vec<FieldError>) -> impl Iterator<Item = FieldError> + '_ {
    errors.into_iter().map(move |mut e| {
        e.property = format!("{prefix}.{}", e.property);
        e
    })
}

fn address(a: &AddressFields, kind: &str) -> AddressInput {
    AddressInput {
        address_line1: a.address_line1.clone(),
        address_line2: a.address_line2.clone(),
        postal_code: a.postal_code.clone(),
        city: a.city.clone(),
        country_code: a.country.clone(),
        kind: kind.to_owned(),
    }
}

impl OnboardingRequest {
    /// Every fault, named by its path in the request.
    pub fn validate(self) -> Result<ValidOnboarding, Vec<FieldError>> {
        let mut v = Violations::new();
        let o = self.organisation;
        let organisation = OrganisationInput {
            name: o.name.clone(),
            approval_status: Some(ApprovalStatus::Pending.as_str().into()),
            merchant_category_code: o.merchant_category_code.clone(),
            locale: o.locale.clone(),
        }
        .validate()
        .map_err(|e| v.extend(prefixed("organisation", e)))
        .ok();
        let main_address = address(&o.main_address, "main")
            .validate()
            .map_err(|e| v.extend(prefixed("organisation.main_address", e)))
            .ok();
        let billing_address = address(&o.billing_address, "billing")
            .validate()
            .map_err(|e| v.extend(prefixed("organisation.billing_address", e)))
            .ok();
        let billing = o.billing_information.as_ref().and_then(|b| {
            BillingInput {
                account_holder: b.account_holder.clone(),
                iban: b.iban.clone(),
                vat_number: String::new(),
                recipient_emails: vec![self.user.email.clone()],
                address: address(&o.billing_address, "billing"),
            }
            .validate()
            .map_err(|e| v.extend(prefixed("organisation.billing_information", e)))
            .ok()
        });
        if self.accounts.is_empty() || self.accounts.len() > MAX_ACCOUNTS {
            v.push(FieldError::not_valid(
                "accounts",
                format!("must name 1 to {MAX_ACCOUNTS} accounts"),
            ));
        }
        let mut accounts = Vec::new();
        for (i, a) in self.accounts.iter().enumerate() {
            match account_name(&a.label) {
                Ok(name) => accounts.push((a.uuid, name)),
                Err(e) => v.extend(prefixed(&format!("accounts[{i}]"), e)),
            }
        }
        let user = UserInput {
            email: self.user.email,
            name: self.user.name,
            organisation_uuid: o.uuid,
            locale: self.user.locale,
            password: self.user.password,
        }
        .validate()
        .map_err(|e| v.extend(prefixed("user", e)))
        .ok();
        match (organisation, main_address, billing_address, user) {
            (Some(organisation), Some(main_address), Some(billing_address), Some(user))
                if v.is_empty() =>
            {
                Ok(ValidOnboarding {
                    organisation_uuid: o.uuid,
                    organisation,
                    main_address,
                    billing_address,
                    billing,
                    accounts,
                    user_uuid: self.user.uuid,
                    user,
                })
            }
            _ => Err(v.into_vec()),
        }
    }
}

/// What was made (or had been, when asked again).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct Onboarded {
    pub organisation_uuid: Uuid,
    pub accounts: Vec<OnboardedAccount>,
    pub user_uuid: Uuid,
}

/// POST /internal/user-credentials: a user proving who they are to connect their
/// organisation to a partner (the onboarding service's connect flow).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(example = json!({"email": "ann@example.org", "password": "correct horse battery", "source": "203.0.113.7"}))]
pub struct CredentialsCheck {
    pub email: String,
    pub password: String,
    /// The address the user came from, as the onboarding service saw it: failures are
    /// slowed per (address, network) as on the login page.
    #[schema(value_type = String, example = "203.0.113.7")]
    pub source: std::net::IpAddr,
}

/// Who the credentials belong to.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct KnownUser {
    pub user_uuid: Uuid,
    pub organisation_uuid: Uuid,
}

/// Whether an e-mail address has a user.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EmailExistence {
    pub exists: bool,
}
