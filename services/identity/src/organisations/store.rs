use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::directory::OrganisationRow;
use crate::schema::organisations::dsl as o;

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

pub fn insert(conn: &mut Db<'_>, row: &OrganisationRow) -> QueryResult<()> {
    db_run!(conn: { diesel::insert_into(o::organisations).values(row).execute(conn).map(drop) })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<OrganisationRow>> {
    db_run!(conn: {
        o::organisations.find(uuid).select(OrganisationRow::as_select()).first(conn).optional()
    })
}

/// Organisations visible through `only` (every one when `None`), oldest first.
pub fn list(
    conn: &mut Db<'_>,
    only: Option<&[String]>,
    limit: i64,
) -> QueryResult<Vec<OrganisationRow>> {
    db_run!(conn: {
        let mut q = o::organisations.select(OrganisationRow::as_select()).into_boxed();
        if let Some(only) = only {
            q = q.filter(o::uuid.eq_any(only));
        }
        q.order((o::created.asc(), o::uuid.asc())).limit(limit).load(conn)
    })
}

/// Escapes LIKE's wildcards so a name is matched literally.
fn contains_pattern(name: &str) -> String {
    let mut pattern = String::from("%");
    for c in name.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// A page of organisations whose name contains `name` (any case), and the total count.
pub fn search(
    conn: &mut Db<'_>,
    only: Option<&[String]>,
    name: Option<&str>,
    offset: i64,
    limit: i64,
) -> QueryResult<(i64, Vec<OrganisationRow>)> {
    let pattern = name.map(contains_pattern);
    db_run!(conn: {
        let filtered = || {
            let mut q = o::organisations.into_boxed();
            if let Some(only) = only {
                q = q.filter(o::uuid.eq_any(only));
            }
            if let Some(pattern) = &pattern {
                q = q.filter(lower(o::name).like(pattern.clone()).escape('\\'));
            }
            q
        };
        let total = filtered().count().get_result::<i64>(conn)?;
        let hits = filtered()
            .select(OrganisationRow::as_select())
            .order((o::name.asc(), o::uuid.asc()))
            .offset(offset)
            .limit(limit)
            .load(conn)?;
        Ok((total, hits))
    })
}
