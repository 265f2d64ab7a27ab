//! An organisation's response bodies, field for field as SPEC.md lists them; events carry
//! the single form too.

use serde::Serialize;

use crate::directory::{AccountRow, OrganisationRow};

/// The list form of an Organisation.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct OrganisationItem<'a> {
    uuid: &'a str,
    name: &'a str,
    created: i64,
    approval_status: &'a str,
    active: bool,
}

impl<'a> From<&'a OrganisationRow> for OrganisationItem<'a> {
    fn from(o: &'a OrganisationRow) -> Self {
        Self {
            uuid: &o.uuid,
            name: &o.name,
            created: o.created,
            approval_status: o.approval_status.as_str(),
            active: o.active,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct UuidRef<'a> {
    uuid: &'a str,
}

/// The single form of an Organisation.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct OrganisationDetail<'a> {
    #[serde(flatten)]
    item: OrganisationItem<'a>,
    merchant_category_code: Option<&'a str>,
    locale: Option<&'a str>,
    accounts: Vec<UuidRef<'a>>,
}

impl<'a> OrganisationDetail<'a> {
    pub(crate) fn new(o: &'a OrganisationRow, accounts: &'a [AccountRow]) -> Self {
        Self {
            item: o.into(),
            merchant_category_code: o.merchant_category_code.as_deref(),
            locale: o.locale.as_deref(),
            accounts: accounts.iter().map(|a| UuidRef { uuid: &a.uuid }).collect(),
        }
    }
}
