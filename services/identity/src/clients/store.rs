use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::api_clients)]
pub struct ClientRow {
    pub client_id: String,
    pub secret_sha256: String,
    pub scope: String,
    pub created: i64,
    pub disabled_at: Option<i64>,
}
use crate::schema::{api_client_organisations::dsl as g, api_clients::dsl as c};

/// Stores a client with the organisations it may touch, in one transaction.
pub fn insert(conn: &mut Db<'_>, row: &ClientRow, organisations: &[String]) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            diesel::insert_into(c::api_clients).values(row).execute(conn)?;
            for organisation in organisations {
                diesel::insert_into(g::api_client_organisations)
                    .values((g::client_id.eq(&row.client_id), g::organisation_uuid.eq(organisation)))
                    .execute(conn)?;
            }
            Ok(())
        })
    })
}

pub fn find(conn: &mut Db<'_>, client_id: &str) -> QueryResult<Option<ClientRow>> {
    db_run!(conn: { c::api_clients.find(client_id).select(ClientRow::as_select()).first(conn).optional() })
}

pub fn organisations(conn: &mut Db<'_>, client_id: &str) -> QueryResult<Vec<String>> {
    db_run!(conn: {
        g::api_client_organisations
            .filter(g::client_id.eq(client_id))
            .select(g::organisation_uuid)
            .order(g::organisation_uuid.asc())
            .load(conn)
    })
}
