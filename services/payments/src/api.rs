//! Payments's part of the API description (crates/http/src/openapi): the operations as
//! their handlers describe them, completed from the route table.

use coffer_http::openapi::Part;
use utoipa::OpenApi;

use crate::routes;

#[derive(OpenApi)]
#[openapi()]
struct Described;

/// Payments's operations, described.
pub fn part() -> Part {
    Part::new(Described::openapi(), &routes::table())
}
