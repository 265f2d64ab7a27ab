//! Every route of payments, in one table: each feature's `routes.rs` registers its own, and
//! nothing else imports them.

use actix_web::web;

use crate::{payments, profiles, search, sources, supporters};

pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    supporters::routes::configure(cfg);
    profiles::routes::configure(cfg);
    payments::routes::configure(cfg);
    payments::changes::configure(cfg);
    payments::refunds::configure(cfg);
    payments::test_psp_pages::configure(cfg);
    sources::routes::configure(cfg);
    search::routes::configure(cfg);
}
