//! What a grant reads: a client with the organisations and accounts it may touch.

use coffer_store::Db;
use diesel::QueryResult;

use crate::accounts::store as accounts;
use crate::clients::store::{self as clients, ClientRow};
use crate::partners::store as partners;

/// A client as a grant needs it: its row and what it may touch.
#[derive(Debug, Clone)]
pub(crate) struct ClientRecord {
    pub row: ClientRow,
    pub organisations: Vec<String>,
    pub accounts: Vec<String>,
    /// The partner, when the client is a partner's.
    pub partner: Option<String>,
}

pub(crate) fn client_record(
    conn: &mut Db<'_>,
    client_id: &str,
) -> QueryResult<Option<ClientRecord>> {
    let Some(row) = clients::find(conn, client_id)? else {
        return Ok(None);
    };
    let organisations = clients::organisations(conn, client_id)?;
    let accounts = accounts::uuids_of_organisations(conn, &organisations)?;
    let partner = partners::uuid_of_client(conn, client_id)?;
    Ok(Some(ClientRecord {
        row,
        organisations,
        accounts,
        partner,
    }))
}
