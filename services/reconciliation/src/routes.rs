//! Reconciliation's HTTP surface, in one table (API.md, "Reconciliation"): each feature's
//! `routes()` routes its handlers by `route!`, at the path each `#[utoipa::path]` states.

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

/// The service's part of the API description (crates/http/src/openapi): every operation
/// the table above routes with `route!`, as its handler describes it.
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::routes;

    #[derive(OpenApi)]
    #[openapi(
        tags((name = "Reconciliation", description = "Bank files (camt.053, camt.054): where they come from, how they are processed, and what reading them did")),
    )]
    struct Described;

    /// Reconciliation's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
