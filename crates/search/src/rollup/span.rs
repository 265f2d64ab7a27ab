//! What of a filter roll-ups can answer: conditions on counted columns only (in any
//! shape), and the instants `created` is bounded to by ranges at the top level. Roll-ups
//! keep whole UTC days, so a bound inside a day leaves an edge of that day to read row by
//! row. Pure.

use crate::filter::{Field, Filter, Kind};
use crate::sql::{Bind, bind};

pub const DAY: i64 = 86_400;

/// Instants `from..until` (either end open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub from: Option<i64>,
    pub until: Option<i64>,
}

impl Span {
    pub fn is_empty(&self) -> bool {
        matches!((self.from, self.until), (Some(f), Some(u)) if f >= u)
    }

    fn narrowed(self, op: &str, at: i64) -> Self {
        let mut span = self;
        let (from, until) = match op {
            // Past the last instant there is none: an empty span.
            ">" if at == i64::MAX => (Some(i64::MAX), Some(i64::MAX)),
            ">" => (Some(at + 1), None),
            ">=" => (Some(at), None),
            "<" => (None, Some(at)),
            // Up to the last instant is every one.
            "<=" => (None, at.checked_add(1)),
            _ => (None, None),
        };
        if let Some(f) = from {
            span.from = Some(span.from.map_or(f, |s| s.max(f)));
        }
        if let Some(u) = until {
            span.until = Some(span.until.map_or(u, |s| s.min(u)));
        }
        span
    }
}

/// A filter split for roll-ups: `counted` holds for whole groups of counted columns,
/// `created` is where the payments lie, and `parameter` is a custom parameter's key and
/// the value it must have (parameters.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub counted: Filter,
    pub created: Span,
    pub parameter: Option<(String, String)>,
}

fn created(field: &Field) -> bool {
    matches!(
        field,
        Field::Column {
            name: "created",
            kind: Kind::Int
        }
    )
}

/// Whether every field `filter` looks at is counted.
pub fn only_counted(filter: &Filter, counted: &dyn Fn(&Field) -> bool) -> bool {
    match filter {
        Filter::Match(f, _) | Filter::Range(f, _) | Filter::Exists(f) => counted(f),
        Filter::And(parts) | Filter::Or(parts) => parts.iter().all(|p| only_counted(p, counted)),
        Filter::Not(inner) => only_counted(inner, counted),
    }
}

/// `filter` as roll-ups read it, or `None` when some condition needs the rows. A match on
/// a key of JSON column `parameters` at the top level, one at most, is a parameter.
pub fn split(
    filter: &Filter,
    counted: &dyn Fn(&Field) -> bool,
    parameters: Option<&str>,
) -> Option<Split> {
    // Conditions joined by $and at any depth are all at the top level.
    fn flat<'f>(filter: &'f Filter, into: &mut Vec<&'f Filter>) {
        match filter {
            Filter::And(parts) => parts.iter().for_each(|p| flat(p, into)),
            one => into.push(one),
        }
    }
    let mut parts = Vec::new();
    flat(filter, &mut parts);
    let mut kept = Vec::new();
    let mut span = Span::default();
    let mut parameter = None;
    for part in parts {
        match part {
            Filter::Match(field @ Field::Json { column, key }, value)
                if Some(*column) == parameters && parameter.is_none() =>
            {
                let Ok(Bind::Text(value)) = bind(field, value) else {
                    return None;
                };
                parameter = Some((key.clone(), value));
            }
            Filter::Range(field, bounds) if created(field) => {
                for (op, value) in bounds {
                    let Ok(Bind::Int(at)) = bind(field, value) else {
                        return None;
                    };
                    span = span.narrowed(op, at);
                }
            }
            other if only_counted(other, counted) => kept.push((*other).clone()),
            _ => return None,
        }
    }
    Some(Split {
        counted: Filter::And(kept),
        created: span,
        parameter,
    })
}

/// A span cut at UTC midnights: the whole days roll-ups answer (day numbers
/// `first..end`, either open), and the edges inside a day, read row by row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Days {
    pub whole: Option<(Option<i64>, Option<i64>)>,
    pub edges: Vec<Span>,
}

/// Instants roll-ups take bounds at: some 285 million years either side of 1970, where
/// day and quarter numbers times their seconds stay far from overflowing. A bound beyond
/// is left to rows.
const FARTHEST: i64 = 1 << 53;

pub fn days(span: Span) -> Days {
    if span.is_empty() {
        return Days {
            whole: None,
            edges: Vec::new(),
        };
    }
    let far = |at: Option<i64>| at.is_some_and(|at| !(-FARTHEST..=FARTHEST).contains(&at));
    if far(span.from) || far(span.until) {
        return Days {
            whole: None,
            edges: vec![span],
        };
    }
    let first = span
        .from
        .map(|f| f.div_euclid(DAY) + i64::from(f.rem_euclid(DAY) != 0));
    let end = span.until.map(|u| u.div_euclid(DAY));
    if let (Some(first), Some(end)) = (first, end)
        && first >= end
    {
        // Within one day, or across one midnight with no whole day between.
        return Days {
            whole: None,
            edges: vec![span],
        };
    }
    let mut edges = Vec::new();
    if let (Some(f), Some(first)) = (span.from, first)
        && f < first * DAY
    {
        edges.push(Span {
            from: Some(f),
            until: Some(first * DAY),
        });
    }
    if let (Some(u), Some(end)) = (span.until, end)
        && end * DAY < u
    {
        edges.push(Span {
            from: Some(end * DAY),
            until: Some(u),
        });
    }
    Days {
        whole: Some((first, end)),
        edges,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::query::tests::SCHEMA;
    use serde_json::json;

    fn counted(field: &Field) -> bool {
        matches!(field, Field::Column { name, .. } if ["status", "payment_method"].contains(name))
    }

    fn read(query: serde_json::Value) -> Option<Split> {
        split(
            &crate::query::parse(&SCHEMA, "query", &query).unwrap(),
            &counted,
            Some("custom_parameters"),
        )
    }

    #[test]
    fn counted_conditions_and_top_level_ranges_on_created_are_answerable() {
        let s = read(json!({"$and": [
            {"$or": [{"$match": {"status": "succeeded"}}, {"$not": {"$match": {"payment_method": "card"}}}]},
            {"$range": {"created": {"gte": 100, "lt": "200"}}},
            {"$range": {"created": {"gt": 120}}}
        ]}))
        .unwrap();
        assert_eq!(
            s.created,
            Span {
                from: Some(121),
                until: Some(200)
            }
        );
        assert!(read(json!({"$range": {"created": {"lte": 5}}})).is_some());
        // A range on created below an $or, or a condition on another field, needs rows.
        assert!(
            read(json!({"$or": [{"$range": {"created": {"gt": 1}}}, {"$match": {"status": "x"}}]}))
                .is_none()
        );
        assert!(read(json!({"$match": {"amount.value": 5}})).is_none());
        // One parameter at the top level; a second, or one below an $or, needs rows.
        let one =
            read(json!({"$match": {"status": "failed", "custom_parameters.campaign": 7}})).unwrap();
        assert_eq!(one.parameter, Some(("campaign".to_owned(), "7".to_owned())));
        assert!(
            read(json!({"$match": {"custom_parameters.a": "x", "custom_parameters.b": "y"}}))
                .is_none()
        );
        assert!(read(json!({"$or": [{"$match": {"custom_parameters.a": "x"}}, {"$match": {"status": "failed"}}]})).is_none());
    }

    #[test]
    fn a_span_is_whole_days_and_the_edges_inside_a_day() {
        let d = days(Span {
            from: Some(DAY + 10),
            until: Some(4 * DAY + 5),
        });
        assert_eq!(d.whole, Some((Some(2), Some(4))));
        assert_eq!(
            d.edges,
            [
                Span {
                    from: Some(DAY + 10),
                    until: Some(2 * DAY)
                },
                Span {
                    from: Some(4 * DAY),
                    until: Some(4 * DAY + 5)
                }
            ]
        );
        let aligned = days(Span {
            from: Some(2 * DAY),
            until: None,
        });
        assert_eq!(aligned.whole, Some((Some(2), None)));
        assert!(aligned.edges.is_empty());
        let inside = days(Span {
            from: Some(DAY + 1),
            until: Some(2 * DAY + 1),
        });
        assert_eq!(inside.whole, None);
        assert_eq!(inside.edges.len(), 1);
        let before_epoch = days(Span {
            from: Some(-DAY - 1),
            until: Some(0),
        });
        assert_eq!(before_epoch.whole, Some((Some(-1), Some(0))));
        assert!(
            days(Span {
                from: Some(5),
                until: Some(5)
            })
            .edges
            .is_empty()
        );
        let far = days(Span {
            from: Some(i64::MIN),
            until: Some(DAY),
        });
        assert_eq!(
            far.whole, None,
            "bounds beyond the roll-ups' are counted from rows"
        );
        assert!(Span::default().narrowed(">", i64::MAX).is_empty());
        assert_eq!(Span::default().narrowed("<=", i64::MAX), Span::default());
    }
}
