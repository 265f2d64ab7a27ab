//! The supporter as stored, recorded and found alike by supporters, payments (a supporter
//! created or named with a payment), payment sources and payment agreements.

use coffer_store::{Db, db_run};
use diesel::prelude::*;
use diesel::result::Error as DieselError;

use super::supporter::{Supporter, personal_fields};
use crate::schema::supporters::dsl as s;

macro_rules! define_row {
    ($($f:ident),*) => {
        #[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
        #[diesel(table_name = crate::schema::supporters, treat_none_as_null = true)]
        pub(crate) struct Row {
            uuid: String,
            organisation_uuid: String,
            created: i64,
            $($f: Option<String>,)*
            custom_parameters: String,
            service_parameters: String,
        }

        impl Row {
            pub(crate) fn from_supporter(x: &Supporter) -> Self {
                Row {
                    uuid: x.uuid.clone(),
                    organisation_uuid: x.organisation_uuid.clone(),
                    created: x.created,
                    $($f: x.$f.clone(),)*
                    custom_parameters: serde_json::to_string(&x.custom_parameters).unwrap_or_else(|_| "{}".into()),
                    service_parameters: x.service_parameters.to_string(),
                }
            }

            pub(crate) fn into_supporter(self) -> QueryResult<Supporter> {
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

pub fn find(db: &mut Db<'_>, uuid: &str) -> QueryResult<Option<Supporter>> {
    let row: Option<Row> =
        db_run!(db: { s::supporters.find(uuid).select(Row::as_select()).first(db).optional() })?;
    row.map(Row::into_supporter).transpose()
}
