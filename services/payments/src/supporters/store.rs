//! Supporters' own queries: a supporter changed, and the organisation's supporters listed.
//! A supporter is recorded and found in shared/supporter_store.rs, as payments and payment
//! sources record theirs.

use coffer_store::{Db, db_run};
use diesel::prelude::*;

use crate::schema::supporters::dsl as s;
use crate::shared::supporter::{Supporter, personal_fields};
use crate::shared::supporter_store::Row;

pub fn update(db: &mut Db<'_>, supporter: &Supporter) -> QueryResult<()> {
    let row = Row::from_supporter(supporter);
    db_run!(db: { diesel::update(s::supporters.find(&supporter.uuid)).set(&row).execute(db).map(drop) })
}

/// How a list is ordered; `field` has passed `domain::sortable`.
#[derive(Debug, Clone)]
pub struct Sort {
    pub field: String,
    pub descending: bool,
}

/// A page of the supporters of `organisations` (all of them when `None`), filtered to one
/// organisation when asked.
pub fn list(
    db: &mut Db<'_>,
    organisations: Option<&[String]>,
    organisation: Option<&str>,
    sort: &Sort,
    offset: i64,
    limit: i64,
) -> QueryResult<Vec<Supporter>> {
    let rows: Vec<Row> = db_run!(db: {
        let mut q = s::supporters.select(Row::as_select()).into_boxed();
        if let Some(list) = organisations {
            q = q.filter(s::organisation_uuid.eq_any(list));
        }
        if let Some(one) = organisation {
            q = q.filter(s::organisation_uuid.eq(one));
        }
        macro_rules! ordered {
            ($($f:ident),*) => {
                match sort.field.as_str() {
                    $(stringify!($f) => if sort.descending { q.order(s::$f.desc()) } else { q.order(s::$f.asc()) },)*
                    "uuid" => if sort.descending { q.order(s::uuid.desc()) } else { q.order(s::uuid.asc()) },
                    _ => if sort.descending { q.order(s::created.desc()) } else { q.order(s::created.asc()) },
                }
            };
        }
        let q = personal_fields!(ordered);
        q.then_order_by(s::uuid.asc()).offset(offset).limit(limit).load(db)
    })?;
    rows.into_iter().map(Row::into_supporter).collect()
}
