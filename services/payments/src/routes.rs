//! Every route of payments, in one table: each feature's `routes.rs` adds its own, each
//! operation at the path its handler's `#[utoipa::path]` states (`route!`), and nothing
//! else imports them.

use coffer_http::openapi::RouteTable;

use crate::{
    agreements, disputes, payment_page, payments, payouts, profiles, provider_notifications,
    refunds, search, sources, supporters,
};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    supporters::routes::routes(&mut t);
    profiles::routes::routes(&mut t);
    payments::routes::routes(&mut t);
    refunds::routes::routes(&mut t);
    disputes::routes::routes(&mut t);
    sources::routes::routes(&mut t);
    search::routes::routes(&mut t);
    agreements::routes::routes(&mut t);
    payouts::routes::routes(&mut t);
    provider_notifications::routes::routes(&mut t);
    payment_page::routes::routes(&mut t);
    t
}

/// The service's part of the API description (crates/http/src/openapi): every operation
/// the table above routes with `route!`, as its handler describes it.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::{Modify, OpenApi};

    use crate::shared::request::NeedsMethodOrProfile;
    use crate::{routes, supporters};

    #[derive(OpenApi)]
    #[openapi(
        // Types used only as query parameters are not collected from the operations.
        components(schemas(crate::shared::supporter::SupporterSort, supporters::routes::ListOrder)),
        tags(
            (name = "Payments", description = "One-off payments, their refunds and their search"),
            (name = "Payment sources", description = "Stored instruments, charged again"),
            (name = "Supporters", description = "The donors an organisation keeps"),
            (name = "Payment method profiles", description = "How an account takes each method"),
            (name = "Payouts", description = "What the test provider pays an account's bank, and its matching with statements"),
            (name = "Provider notifications", description = "What payment providers tell Coffer, signed, at each connector account's endpoint"),
        )
    )]
    struct Described;

    /// Payments' operations, described.
    pub fn part() -> Part {
        let mut part = Part::new(Described::openapi(), &routes::table());
        // PaymentRequest reaches the description only with the operations that take it,
        // which Part::new adds, so the schema is completed after it rather than as a
        // modifier of the derive (which would run before the schema is there).
        NeedsMethodOrProfile.modify(&mut part.doc);
        part
    }
}

pub use described::part;
