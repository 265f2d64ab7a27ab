//! A payment method profile as recorded: which provider handles which method for an
//! account. Payments and payment sources are made through one, and the service's state
//! keeps each account's for a moment ([`KnownAccounts`], state.rs).

use coffer_store::TtlCache;
use diesel::prelude::*;
use serde::Serialize;

use super::method::PaymentMethod;

#[derive(
    Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, Serialize, utoipa::ToSchema,
)]
#[diesel(table_name = crate::schema::payment_method_profiles)]
pub struct Profile {
    pub uuid: String,
    pub account_uuid: String,
    pub organisation_uuid: String,
    pub name: String,
    // A string in the API description, not a closed list: a method added later changes
    // no client's schema.
    #[schema(value_type = String)]
    pub payment_method: PaymentMethod,
    pub test_mode: bool,
    pub provider: String,
    pub is_default: bool,
    pub created: i64,
    /// The connector account that serves it (docs/payments.md, "Connecting Stripe"); none
    /// for the test provider's profiles.
    pub connector_account_uuid: Option<String>,
}

/// Accounts' organisations and payment method profiles, by account uuid, kept a short
/// while: every payment reads them (shared/profile_choice.rs).
pub(crate) type KnownAccounts = TtlCache<String, (String, Vec<Profile>)>;
