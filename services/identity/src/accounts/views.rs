//! An account's response bodies, field for field as SPEC.md lists them; events carry the
//! single form too.

use serde::Serialize;

use super::store::BillingRow;
use crate::directory::{AccountRow, OrganisationRow};

/// The list form of an Account.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct AccountItem<'a> {
    uuid: &'a str,
    name: &'a str,
    created: i64,
    active: bool,
    organisation_uuid: &'a str,
}

impl<'a> From<&'a AccountRow> for AccountItem<'a> {
    fn from(a: &'a AccountRow) -> Self {
        Self {
            uuid: &a.uuid,
            name: &a.name,
            created: a.created,
            active: a.active,
            organisation_uuid: &a.organisation_uuid,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct OrganisationSummary<'a> {
    uuid: &'a str,
    name: &'a str,
    created: i64,
    active: bool,
}

/// The single form of an Account: the organisation object replaces organisation_uuid.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct AccountDetail<'a> {
    uuid: &'a str,
    name: &'a str,
    created: i64,
    active: bool,
    organisation: OrganisationSummary<'a>,
}

impl<'a> AccountDetail<'a> {
    pub(crate) fn new(a: &'a AccountRow, o: &'a OrganisationRow) -> Self {
        Self {
            uuid: &a.uuid,
            name: &a.name,
            created: a.created,
            active: a.active,
            organisation: OrganisationSummary {
                uuid: &o.uuid,
                name: &o.name,
                created: o.created,
                active: o.active,
            },
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct BillingAddress<'a> {
    address_line1: &'a str,
    address_line2: &'a str,
    postal_code: &'a str,
    city: &'a str,
    country_code: &'a str,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct BillingDataView<'a> {
    organisation_name: &'a str,
    account_name: &'a str,
    account_holder: &'a str,
    iban: &'a str,
    vat_number: &'a str,
    recipient_emails: Vec<String>,
    address: BillingAddress<'a>,
}

impl<'a> BillingDataView<'a> {
    pub(crate) fn new(b: &'a BillingRow, a: &'a AccountRow, o: &'a OrganisationRow) -> Self {
        Self {
            organisation_name: &o.name,
            account_name: &a.name,
            account_holder: &b.account_holder,
            iban: &b.iban,
            vat_number: &b.vat_number,
            recipient_emails: serde_json::from_str(&b.recipient_emails).unwrap_or_default(),
            address: BillingAddress {
                address_line1: &b.address_line1,
                address_line2: &b.address_line2,
                postal_code: &b.postal_code,
                city: &b.city,
                country_code: &b.country_code,
            },
        }
    }
}
