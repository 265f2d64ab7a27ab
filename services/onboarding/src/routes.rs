//! Onboarding's HTTP surface, in one table (API.md, "Partner onboarding"). The e-mail
//! check answers errors in shape A, as SPEC.md shows for its missing captcha.

use coffer_http::openapi::RouteTable;
use coffer_http::{Shape, route};

use crate::{integrations, processes};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.shaped(Shape::B, for_processes);
    t.public(|t| {
        t.shaped(Shape::A, |t| {
            route!(t, processes::routes::email_existence);
        });
        route!(t, processes::routes::by_token);
        route!(t, processes::routes::execute);
        route!(t, processes::routes::connect);
    });
    route!(t, integrations::routes::list);
    route!(t, integrations::routes::disable);
    t
}

fn for_processes(t: &mut RouteTable) {
    use processes::routes as p;
    route!(t, p::create);
    route!(t, p::get);
}

/// The service's part of the API description (crates/http/src/openapi).
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::routes;

    #[derive(OpenApi)]
    #[openapi(
        tags((name = "Partner onboarding", description = "Organisations partners bring, and partners' access to them")),
    )]
    struct Described;

    /// Onboarding's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
