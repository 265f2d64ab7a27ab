use coffer_store::{Db, WriteTx, db_run};
use diesel::prelude::*;

use crate::clients::store::ClientRow;
use crate::schema::{api_clients::dsl as c, partner_redirect_uris::dsl as r, partners::dsl as p};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = crate::schema::partners)]
pub struct PartnerRow {
    pub uuid: String,
    pub name: String,
    pub client_id: String,
    pub created: i64,
}

/// A partner as sign-in needs it: its client (enabled or not) and where it may be sent.
#[derive(Debug, Clone)]
pub struct PartnerClient {
    pub partner: PartnerRow,
    pub client: ClientRow,
    pub redirect_uris: Vec<String>,
}

/// Stores a partner with its client and redirect URIs, in one transaction.
pub fn insert(
    conn: &mut Db<'_>,
    client: &ClientRow,
    partner: &PartnerRow,
    redirect_uris: &[String],
) -> QueryResult<()> {
    db_run!(conn: {
        conn.write_tx(|conn| {
            diesel::insert_into(c::api_clients).values(client).execute(conn)?;
            diesel::insert_into(p::partners).values(partner).execute(conn)?;
            for uri in redirect_uris {
                diesel::insert_into(r::partner_redirect_uris)
                    .values((r::partner_uuid.eq(&partner.uuid), r::uri.eq(uri)))
                    .execute(conn)?;
            }
            Ok(())
        })
    })
}

/// The partner whose client id is `client_id`, if it is one.
pub fn by_client(conn: &mut Db<'_>, client_id: &str) -> QueryResult<Option<PartnerClient>> {
    let found: Option<(PartnerRow, ClientRow)> = db_run!(conn: {
        p::partners
            .inner_join(c::api_clients)
            .filter(p::client_id.eq(client_id))
            .select((PartnerRow::as_select(), ClientRow::as_select()))
            .first(conn)
            .optional()
    })?;
    let Some((partner, client)) = found else {
        return Ok(None);
    };
    let redirect_uris = db_run!(conn: {
        r::partner_redirect_uris
            .filter(r::partner_uuid.eq(&partner.uuid))
            .select(r::uri)
            .order(r::uri.asc())
            .load(conn)
    })?;
    Ok(Some(PartnerClient {
        partner,
        client,
        redirect_uris,
    }))
}

/// The partner whose client `client_id` is, if any.
pub fn uuid_of_client(conn: &mut Db<'_>, client_id: &str) -> QueryResult<Option<String>> {
    db_run!(conn: { p::partners.filter(p::client_id.eq(client_id)).select(p::uuid).first(conn).optional() })
}

pub fn find(conn: &mut Db<'_>, uuid: &str) -> QueryResult<Option<PartnerRow>> {
    db_run!(conn: { p::partners.find(uuid).select(PartnerRow::as_select()).first(conn).optional() })
}
