//! The directory's two records as stored: an organisation, with its approval status, and
//! an account, with the one read that joins them. Both features read both (an account is
//! shown with its organisation, an organisation's single form lists its accounts), so the
//! records sit here, below both, and neither feature imports the other for them.

use coffer_model::text_enum;
use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::accounts::dsl as a;

text_enum! {
    /// Approval states Coffer knows. SPEC.md shows two and says the set is larger; Coffer
    /// adds `rejected` (docs/decisions/identity.md).
    pub enum ApprovalStatus {
        Approved => "approved",
        Pending => "approval_pending",
        Rejected => "rejected",
    }
}

impl ApprovalStatus {
    pub const ALL: [ApprovalStatus; 3] = [Self::Approved, Self::Pending, Self::Rejected];
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::organisations)]
pub struct OrganisationRow {
    pub uuid: String,
    pub name: String,
    pub created: i64,
    pub approval_status: ApprovalStatus,
    pub active: bool,
    pub merchant_category_code: Option<String>,
    pub locale: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::accounts)]
pub struct AccountRow {
    pub uuid: String,
    pub organisation_uuid: String,
    pub name: String,
    pub created: i64,
    pub active: bool,
}

/// An organisation's accounts, oldest first.
pub fn accounts_of(conn: &mut Db<'_>, organisation: &str) -> QueryResult<Vec<AccountRow>> {
    db_run!(conn: {
        a::accounts
            .filter(a::organisation_uuid.eq(organisation))
            .select(AccountRow::as_select())
            .order((a::created.asc(), a::uuid.asc()))
            .load(conn)
    })
}
