//! An address's response body, field for field as SPEC.md lists it.

use serde::Serialize;

use super::store::AddressRow;

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(crate) struct AddressView<'a> {
    uuid: &'a str,
    created: i64,
    address_line1: &'a str,
    address_line2: &'a str,
    postal_code: &'a str,
    city: &'a str,
    country_code: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
}

impl<'a> From<&'a AddressRow> for AddressView<'a> {
    fn from(a: &'a AddressRow) -> Self {
        Self {
            uuid: &a.uuid,
            created: a.created,
            address_line1: &a.address_line1,
            address_line2: &a.address_line2,
            postal_code: &a.postal_code,
            city: &a.city,
            country_code: &a.country_code,
            kind: &a.kind,
        }
    }
}
