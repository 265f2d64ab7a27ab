//! Every route of payments, in one table: each feature's `routes.rs` adds its own, and
//! nothing else imports them.

use coffer_http::openapi::RouteTable;

use crate::{payments, profiles, search, sources, supporters};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    supporters::routes::routes(&mut t);
    profiles::routes::routes(&mut t);
    payments::routes::routes(&mut t);
    payments::changes::routes(&mut t);
    payments::refunds::routes(&mut t);
    payments::test_psp_pages::routes(&mut t);
    sources::routes::routes(&mut t);
    search::routes::routes(&mut t);
    t
}
