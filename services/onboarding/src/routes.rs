//! Onboarding's HTTP surface, in one table (API.md, "Partner onboarding"). The e-mail
//! check answers errors in shape A, as SPEC.md shows for its missing captcha.

use coffer_http::Shape;
use coffer_http::openapi::RouteTable;

use crate::{integrations, processes};

pub(crate) fn table() -> RouteTable {
    let mut t = RouteTable::new();
    t.shaped(Shape::B, for_processes);
    t.public(|t| {
        t.shaped(Shape::A, |t| {
            t.get(
                "/partner-onboarding-processes/user-emails/{email}",
                processes::routes::email_existence,
            );
        });
        t.get(
            "/partner-onboarding-processes/tokens/{token}",
            processes::routes::by_token,
        )
        .post(
            "/partner-onboarding-processes/tokens/{token}/execute",
            processes::routes::execute,
        )
        .post(
            "/partner-onboarding-processes/tokens/{token}/connect",
            processes::routes::connect,
        );
    });
    t.get("/partner-integrations", integrations::routes::list)
        .post(
            "/partner-integrations/{partner_integration_uuid}/disable",
            integrations::routes::disable,
        );
    t
}

fn for_processes(t: &mut RouteTable) {
    use processes::routes as p;
    t.post("/partner-onboarding-processes", p::create)
        .get("/partner-onboarding-processes/{uuid}", p::get);
}

/// The service's part of the API description (crates/http/src/openapi).
mod described {
    use coffer_http::openapi::Part;
    use utoipa::OpenApi;

    use crate::{integrations, processes, routes};

    #[derive(OpenApi)]
    #[openapi(
        paths(
            processes::routes::create,
            processes::routes::get,
            processes::routes::by_token,
            processes::routes::execute,
            processes::routes::connect,
            processes::routes::email_existence,
            integrations::routes::list,
            integrations::routes::disable,
        ),
        tags((name = "Partner onboarding", description = "Organisations partners bring, and partners' access to them")),
    )]
    struct Described;

    /// Onboarding's operations, described.
    pub fn part() -> Part {
        Part::new(Described::openapi(), &routes::table())
    }
}

pub use described::part;
