//! Every route of payments, in one table: each feature's `routes.rs` adds its own, and
//! nothing else imports them.

use coffer_http::openapi::RouteTable;

use crate::{agreements, payments, payouts, profiles, refunds, search, sources, supporters};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    supporters::routes::routes(&mut t);
    profiles::routes::routes(&mut t);
    payments::routes::routes(&mut t);
    refunds::routes::routes(&mut t);
    sources::routes::routes(&mut t);
    search::routes::routes(&mut t);
    agreements::routes::routes(&mut t);
    payouts::routes::routes(&mut t);
    t
}

/// The service's part of the API description (crates/http/src/openapi): every routed
/// operation as its handler describes it, completed from the table above.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::shared::request::NeedsMethodOrProfile;
    use crate::{
        agreements, payments, payouts, profiles, refunds, routes, search, sources, supporters,
    };

    #[derive(OpenApi)]
    #[openapi(
        paths(
            payments::routes::create,
            payments::routes::get,
            payments::routes::cancel,
            payments::routes::replace_parameters,
            payments::routes::patch_parameters,
            refunds::routes::create,
            search::routes::search,
            agreements::routes::search,
            sources::routes::create,
            sources::routes::get,
            sources::routes::replace_parameters,
            payments::routes::charge_source,
            supporters::routes::list,
            supporters::routes::create,
            supporters::routes::get,
            supporters::routes::update,
            supporters::routes::search,
            profiles::routes::list,
            payouts::routes::list,
            payouts::routes::get,
        ),
        // Types used only as query parameters are not collected from the paths.
        components(schemas(crate::shared::supporter::SupporterSort, supporters::routes::ListOrder)),
        modifiers(&NeedsMethodOrProfile),
        tags(
            (name = "Payments", description = "One-off payments, their refunds and their search"),
            (name = "Payment sources", description = "Stored instruments, charged again"),
            (name = "Supporters", description = "The donors an organisation keeps"),
            (name = "Payment method profiles", description = "How an account takes each method"),
            (name = "Payouts", description = "What the test provider pays an account's bank, and its matching with statements"),
        )
    )]
    struct Described;

    /// Payments' operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
