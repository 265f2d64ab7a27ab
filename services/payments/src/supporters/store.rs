use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::domain::Supporter;
use super::domain::personal_fields;
use crate::schema::supporters::dsl as s;

macro_rules! define_row {
    ($($f:ident),*) => {
        #[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
        #[diesel(table_name = crate::schema::supporters, treat_none_as_null = true)]
        struct Row {
            uuid: String,
            organisation_uuid: String,
            created: i64,
            $($f: Option<String>,)*
            custom_parameters: String,
            service_parameters: String,
        }

        impl Row {
            fn from_supporter(x: &Supporter) -> Self {
                Row {
                    uuid: x.uuid.clone(),
                    organisation_uuid: x.organisation_uuid.clone(),
                    created: x.created,
                    $($f: x.$f.clone(),)*
                    custom_parameters: serde_json::to_string(&x.custom_parameters).unwrap_or_else(|_| "{}".into()),
                    service_parameters: x.service_parameters.to_string(),
                }
            }

            fn into_supporter(self) -> QueryResult<Supporter> {
                let custom = serde_json::from_str(&self.custom_parameters)
                    .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
                let service = serde_json::from_str(&self.service_parameters)
                    .map_err(|e| DieselError::DeserializationError(Box::new(e)))?;
                Ok(Supporter {
                    uuid: self.uuid,
                    organisation_uuid: self.organisation_uuid,
                    created: self.created,
                    $($f: self.$f,)*
                    custom_parameters: custom,
                    service_parameters: service,
                })
            }
        }
    };
}
personal_fields!(define_row);

pub fn insert(db: &mut Db<'_>, supporter: &Supporter) -> QueryResult<()> {
    let row = Row::from_supporter(supporter);
    db_run!(db: { diesel::insert_into(s::supporters).values(&row).execute(db).map(drop) })
}

pub fn update(db: &mut Db<'_>, supporter: &Supporter) -> QueryResult<()> {
    let row = Row::from_supporter(supporter);
    db_run!(db: { diesel::update(s::supporters.find(&row.uuid)).set(&row).execute(db).map(drop) })
}

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Supporter>> {
    let row: Option<Row> =
        db_run!(db: { s::supporters.find(uuid).select(Row::as_select()).first(db).optional() })?;
    row.map(Row::into_supporter).transpose()
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
