//! Answers read from parameter counts: payments per value of each custom parameter, per
//! group of counted columns (no day). The total of a match on one parameter, and a term
//! aggregation on one, add them up; the payments a term's values leave (no such key, or
//! JSON null) are its null bucket. A key with a value too long to count is noted as
//! overflowing for its organisation, and searches on it count rows instead.

use std::collections::BTreeMap;

use coffer_store::{Backend, Db};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use serde_json::Value;

use super::read::Reading;
use super::tables::Parameters;
use crate::answer::bucket;
use crate::fetch::load;
use crate::filter::Field;
use crate::sql::Bind;

#[derive(QueryableByName)]
struct Total {
    #[diesel(sql_type = Nullable<BigInt>)]
    n: Option<i64>,
}

#[derive(QueryableByName)]
struct Keyed {
    #[diesel(sql_type = Text)]
    k: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    n: Option<i64>,
}

#[derive(QueryableByName)]
struct Overflowing {
    #[diesel(sql_type = Bool)]
    overflowing: bool,
}

impl Reading<'_> {
    /// Whether `key` of the caller's organisations has a value too long to count, or a
    /// payment's parameters could not be read at all (key `*`).
    fn overflowing(
        &self,
        db: &mut Db<'_>,
        parameters: &Parameters,
        key: &str,
    ) -> diesel::QueryResult<bool> {
        let mut b = crate::sql::Builder::new(db.backend());
        let tenant = b.tenant(self.visible);
        let mut binds = b.binds;
        binds.push(Bind::Text(key.to_owned()));
        let mark = placeholder(db.backend(), binds.len());
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM {} WHERE {tenant} AND (key = {mark} OR key = '*')) \
             AS overflowing",
            parameters.overflow
        );
        Ok(load::<Overflowing>(db, &sql, &binds)?
            .first()
            .is_some_and(|o| o.overflowing))
    }

    /// Payments whose parameter `key` is `value`, of the counted groups; `None` when the
    /// key overflows or the filter also bounds `created` (parameter counts keep no days).
    pub fn parameter_total(
        &self,
        db: &mut Db<'_>,
        (key, value): (&str, &str),
    ) -> diesel::QueryResult<Option<i64>> {
        let Some(parameters) = self.rollups.parameters else {
            return Ok(None);
        };
        if self.split.created != super::Span::default() || self.overflowing(db, &parameters, key)? {
            return Ok(None);
        }
        let (cond, mut binds) = self.counted(db)?;
        binds.push(Bind::Text(key.to_owned()));
        let key_mark = placeholder(db.backend(), binds.len());
        binds.push(Bind::Text(value.to_owned()));
        let value_mark = placeholder(db.backend(), binds.len());
        let mut total = 0;
        for table in [parameters.counts, parameters.changes] {
            let sql = format!(
                "SELECT CAST(SUM(n) AS BIGINT) AS n FROM {table} WHERE {cond} \
                 AND key = {key_mark} AND value = {value_mark}"
            );
            total += load::<Total>(db, &sql, &binds)?
                .iter()
                .filter_map(|t| t.n)
                .sum::<i64>();
        }
        Ok(Some(total))
    }

    /// The `size` most frequent values of parameter `key` among `total` payments, the
    /// payments without one as the null key; `None` when the counts cannot answer.
    pub fn parameter_term(
        &self,
        db: &mut Db<'_>,
        (field, key): (&Field, &str),
        (size, total): (i64, i64),
    ) -> diesel::QueryResult<Option<Value>> {
        let Some(parameters) = self.rollups.parameters else {
            return Ok(None);
        };
        if self.split.created != super::Span::default()
            || self.split.parameter.is_some()
            || self.overflowing(db, &parameters, key)?
        {
            return Ok(None);
        }
        let (cond, mut binds) = self.counted(db)?;
        binds.push(Bind::Text(key.to_owned()));
        let key_mark = placeholder(db.backend(), binds.len());
        let mut counts: BTreeMap<Option<String>, i64> = BTreeMap::new();
        for table in [parameters.counts, parameters.changes] {
            let sql = format!(
                "SELECT value AS k, CAST(SUM(n) AS BIGINT) AS n FROM {table} WHERE {cond} \
                 AND key = {key_mark} GROUP BY value"
            );
            for row in load::<Keyed>(db, &sql, &binds)? {
                *counts.entry(Some(row.k)).or_default() += row.n.unwrap_or(0);
            }
        }
        let valued: i64 = counts.values().filter(|n| **n > 0).sum();
        counts.insert(None, total - valued);
        let mut ranked: Vec<(Option<String>, i64)> =
            counts.into_iter().filter(|(_, n)| *n > 0).collect();
        // Most first; among equals by key, bytewise as the databases compare text, and
        // the null key where each database sorts it: first on SQLite, last on PostgreSQL.
        let nulls_first = db.backend() == Backend::Sqlite;
        ranked.sort_by(|a, b| {
            b.1.cmp(&a.1).then_with(|| match (&a.0, &b.0) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) if nulls_first => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(_), None) if nulls_first => std::cmp::Ordering::Greater,
                (Some(_), None) => std::cmp::Ordering::Less,
                (Some(x), Some(y)) => x.cmp(y),
            })
        });
        ranked.truncate(usize::try_from(size).unwrap_or(0));
        Ok(Some(Value::Array(
            ranked
                .into_iter()
                .map(|(k, n)| bucket(field, k, n))
                .collect(),
        )))
    }
}

/// The placeholder of the `n`th bound value.
fn placeholder(backend: Backend, n: usize) -> String {
    match backend {
        Backend::Postgres => format!("${n}"),
        Backend::Sqlite => "?".to_owned(),
    }
}
