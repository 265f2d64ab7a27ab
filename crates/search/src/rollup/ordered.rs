//! Which index a page of hits is read along on SQLite. Its planner takes the index of a
//! `created` range and sorts every match, whatever the sort: a 30-day range of one account
//! sorted by amount read and sorted the range's payments, 148 ms at ten million
//! (docs/benchmarks.md). Walking an index that orders the account's payments by amount
//! instead, and skipping those outside the range, reads about `(from + size) × account's
//! payments / matches` rows: the same search answered in 2.2 ms. Roll-ups know both
//! counts, so the choice is made from them; PostgreSQL's planner weighs the two itself and
//! is left to it. The index is one of [`super::Rollups::ordered`].

use coffer_store::{Backend, Db};

use super::read::Reading;
use super::span::{Span, Split, days};
use crate::filter::{Field, Filter};

/// Whether walking `whole` rows in order to find the first `wanted` of `matching` ones
/// spread among them reads fewer rows than sorting all `matching`. The walk assumes the
/// matches are spread evenly along the order; where they are not it reads more, up to
/// `whole`, as PostgreSQL's planner would under the same assumption.
fn walk_is_shorter(wanted: i64, whole: i64, matching: i64) -> bool {
    matching > 0 && i128::from(wanted) * i128::from(whole) < i128::from(matching).pow(2)
}

impl Reading<'_> {
    /// The index to read a page sorted by `column` along, on SQLite, when one orders the
    /// rows of the one value of its `within` column the filter matches and walking all of
    /// that value's rows is shorter than sorting the `matching` ones; `None` leaves the
    /// plan to SQLite.
    pub fn page_index(
        &self,
        db: &mut Db<'_>,
        column: &str,
        wanted: i64,
        matching: i64,
    ) -> diesel::QueryResult<Option<&'static str>> {
        let Some(ordered) = self.rollups.ordered.iter().find(|o| o.column == column) else {
            return Ok(None);
        };
        let Filter::And(parts) = &self.split.counted else {
            return Ok(None);
        };
        let Some(one_value) = parts.iter().find(|p| {
            matches!(p, Filter::Match(Field::Column { name, .. }, _) if *name == ordered.within)
        }) else {
            return Ok(None);
        };
        // Without a `created` bound the filter leaves SQLite no other index to sort by,
        // and it walks this one itself. A parameter match with a bound is counted from
        // rows (parameters.rs) and does not get here.
        let bounded = self.split.created != Span::default();
        if db.backend() != Backend::Sqlite || !bounded || self.split.parameter.is_some() {
            return Ok(None);
        }
        // The walk reads every row of the value, whatever else the filter asks of them
        // (a status, a method): the index holds none of it.
        let value = Split {
            counted: Filter::And(vec![one_value.clone()]),
            created: Span::default(),
            parameter: None,
        };
        let every_row = Reading {
            filter: &value.counted,
            split: &value,
            days: days(Span::default()),
            ..*self
        };
        let whole = every_row.total(db)?;
        Ok(walk_is_shorter(wanted, whole, matching).then_some(ordered.index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_is_chosen_only_when_the_matches_are_dense_enough() {
        // Ten million payments, a month of them (86,400), 20 wanted: about 2,300 read.
        assert!(walk_is_shorter(20, 10_000_000, 86_400));
        // A day of them (2,880): about 69,000 read, against sorting 2,880.
        assert!(!walk_is_shorter(20, 10_000_000, 2_880));
        // Nothing matches: a walk would read every row for nothing.
        assert!(!walk_is_shorter(20, 10_000_000, 0));
        // Counts as large as they come do not overflow.
        assert!(walk_is_shorter(20_000, i64::MAX, i64::MAX / 2));
        assert!(!walk_is_shorter(i64::MAX, i64::MAX, 1));
    }
}
