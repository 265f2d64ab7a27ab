//! Reconciliation's HTTP surface, in one table (API.md, "Reconciliation").

use coffer_http::openapi::RouteTable;

use crate::{blueprints, files, reports, sources, uploads};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    blueprints::routes::routes(&mut t);
    files::routes::routes(&mut t);
    sources::routes::routes(&mut t);
    uploads::routes::routes(&mut t);
    reports::routes::routes(&mut t);
    t
}

/// The service's part of the API description (crates/http/src/openapi).
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{blueprints, files, reports, routes, sources, uploads};

    #[derive(OpenApi)]
    #[openapi(
        paths(
            blueprints::routes::list,
            blueprints::routes::create,
            blueprints::routes::get,
            files::routes::execute,
            sources::routes::list,
            sources::routes::create,
            sources::routes::get,
            uploads::routes::credentials,
            reports::routes::list,
            reports::routes::get,
        ),
        tags((name = "Reconciliation", description = "Bank files (camt.053, camt.054): where they come from, how they are processed, and what reading them did")),
    )]
    struct Described;

    /// Reconciliation's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
