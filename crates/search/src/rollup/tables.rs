//! Where a service keeps its roll-ups and parameter counts, and what they are kept by:
//! the names the readers (read.rs, parameters.rs) write their SQL with.

use crate::filter::Field;

/// Where a service keeps its roll-ups, and what they are kept by.
#[derive(Debug, Clone, Copy)]
pub struct Rollups {
    /// Per group of counted columns and UTC day: `day` (days since 1970-01-01), `n`,
    /// `amount_high` and `amount_low` (the summed column's sum in two parts: the sums of
    /// each value over and modulo [`crate::answer::SUM_SPLIT`]) and `quarters`
    /// (quarters.rs).
    pub days: &'static str,
    /// Changes not folded yet, per group of counted columns: `quarter` (the instant over
    /// 900), `n`, `amount_high` and `amount_low`, each +/- a payment.
    pub changes: &'static str,
    /// Whether the roll-ups are kept by `field` (a column of both tables).
    pub counted: fn(&Field) -> bool,
    /// The column whose sum they keep: stats of it are answered too.
    pub summed: &'static str,
    /// Counts per custom parameter value, when the service keeps them.
    pub parameters: Option<Parameters>,
    /// Indexes that order the rows of one counted value by a sortable column, for pages
    /// sorted by it (ordered.rs chooses one).
    pub ordered: &'static [Ordered],
}

/// Where a service keeps its parameter counts.
#[derive(Debug, Clone, Copy)]
pub struct Parameters {
    /// The JSON column of the parameters, as the schema's fields name it.
    pub column: &'static str,
    /// Per group of counted columns, `key` and `value`: `n`.
    pub counts: &'static str,
    /// Changes not folded yet, likewise.
    pub changes: &'static str,
    /// `organisation_uuid` and `key` of the keys not counted.
    pub overflow: &'static str,
}

/// An index that walks the rows of one value of `within` (a counted column) in the order
/// of `column`, then `uuid`, as hits sorted by `column` are ordered.
#[derive(Debug, Clone, Copy)]
pub struct Ordered {
    pub column: &'static str,
    pub within: &'static str,
    pub index: &'static str,
}
