//! Payments per value of each custom parameter (migration 000023): what searches read
//! ([`PARAMETERS`]) and [`fold`], which adds the appended changes up like the kept counts.

use coffer_search::rollup::Parameters;
use coffer_store::Db;
use diesel::QueryResult;

use super::counts;

pub const PARAMETERS: Parameters = Parameters {
    column: "custom_parameters",
    counts: "payment_parameter_counts",
    changes: "payment_parameter_changes",
    overflow: "payment_parameter_overflow",
};

const COLUMNS: &str =
    "organisation_uuid, account_uuid, key, value, test_mode, status, payment_method, currency";

pub fn fold(db: &mut Db<'_>) -> QueryResult<()> {
    counts::fold_into(db, (PARAMETERS.changes, PARAMETERS.counts), COLUMNS)
}
