use diesel::prelude::*;

use crate::schema::*;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = organisations)]
pub struct OrganisationRow {
    pub uuid: String,
    pub name: String,
    pub created: i64,
    pub approval_status: String,
    pub active: bool,
    pub merchant_category_code: Option<String>,
    pub locale: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
pub struct AccountRow {
    pub uuid: String,
    pub organisation_uuid: String,
    pub name: String,
    pub created: i64,
    pub active: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = addresses)]
pub struct AddressRow {
    pub uuid: String,
    pub organisation_uuid: Option<String>,
    pub account_uuid: Option<String>,
    pub created: i64,
    pub address_line1: String,
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = billing_data)]
pub struct BillingRow {
    pub account_uuid: String,
    pub account_holder: String,
    pub iban: String,
    pub vat_number: String,
    /// A JSON array of e-mail addresses.
    pub recipient_emails: String,
    pub address_line1: String,
    pub address_line2: String,
    pub postal_code: String,
    pub city: String,
    pub country_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = api_clients)]
pub struct ClientRow {
    pub client_id: String,
    pub secret_sha256: String,
    pub scope: String,
    pub created: i64,
    pub disabled_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = signing_keys)]
pub struct KeyRow {
    pub kid: String,
    /// PKCS#8 DER sealed by coffer-secrets (`v1.<master kid>.<...>`); rows from before
    /// sealing hold the DER in plaintext base64 until the next start seals them. The
    /// column keeps its name so that code before sealing still reads it during a rollout.
    pub private_key_pkcs8: String,
    pub created: i64,
    pub retired_at: Option<i64>,
}
