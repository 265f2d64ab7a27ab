//! The uuids a route's path carries, parsed before the handler runs: a malformed one is the
//! caller's mistake, answered 400 in the operation's error shape with the path parameter
//! named as its property (`{"organisation_uuid": "This value must be a UUID."}`), before
//! anything is loaded (so never a 404 or 403 for it).
//!
//! The names come from the route's own pattern (`match_info`), so a handler does not
//! repeat them: `PathUuid` for a route with one parameter, `PathUuids<N>` for one with N,
//! in the order the path names them. A route whose parameters are not what its handler
//! asks for is a mistake in Coffer, answered 500.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use coffer_error::ApiError;
use coffer_model::ids::parse_uuid;
use uuid::Uuid;

/// The uuid in a route's one path parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathUuid(pub Uuid);

impl PathUuid {
    pub fn into_inner(self) -> Uuid {
        self.0
    }
}

impl std::fmt::Display for PathUuid {
    /// The canonical (lower-case, hyphenated) text, as the stores keep it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl FromRequest for PathUuid {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(path_uuids::<1>(req).map(|[uuid]| PathUuid(uuid)))
    }
}

/// The uuids in a route's N path parameters, in the order the path names them; every
/// malformed one is named in the one 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathUuids<const N: usize>(pub [Uuid; N]);

impl<const N: usize> PathUuids<N> {
    pub fn into_inner(self) -> [Uuid; N] {
        self.0
    }
}

impl<const N: usize> FromRequest for PathUuids<N> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(path_uuids::<N>(req).map(PathUuids))
    }
}

fn path_uuids<const N: usize>(req: &HttpRequest) -> Result<[Uuid; N], ApiError> {
    let path = req.match_info();
    if path.segment_count() != N {
        return Err(ApiError::internal(format!(
            "{} has {} path parameters, its handler reads {N}",
            req.match_pattern().unwrap_or_default(),
            path.segment_count()
        )));
    }
    let mut uuids = [Uuid::nil(); N];
    let mut errors = Vec::new();
    for (slot, (name, raw)) in uuids.iter_mut().zip(path.iter()) {
        match parse_uuid(name, raw) {
            Ok(uuid) => *slot = uuid,
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(uuids)
    } else {
        Err(ApiError::validation(errors))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use actix_web::http::StatusCode;
    use actix_web::{App, HttpResponse, test, web};
    use serde_json::Value;

    use super::*;

    async fn one(uuid: PathUuid) -> HttpResponse {
        HttpResponse::Ok().body(uuid.to_string())
    }

    async fn two(uuids: PathUuids<2>) -> HttpResponse {
        let [owner, address] = uuids.into_inner();
        HttpResponse::Ok().body(format!("{owner} {address}"))
    }

    async fn call(uri: &str) -> (StatusCode, String) {
        let app = test::init_service(
            App::new()
                .route("/reports/{report_uuid}", web::get().to(one))
                .route(
                    "/owners/{owner_uuid}/addresses/{address_uuid}",
                    web::get().to(two),
                )
                .route("/wrong/{a}/{b}", web::get().to(one)),
        )
        .await;
        let res = test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
        let status = res.status();
        let body = test::read_body(res).await;
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    /// The properties a 400's body names, whatever the shape renders around them.
    fn named(body: &str) -> Value {
        serde_json::from_str(body).unwrap()
    }

    const UUID: &str = "67e55044-10b1-426f-9247-bb680e5fe0c8";

    #[actix_web::test]
    async fn reads_the_one_parameter_in_canonical_form() {
        let (status, body) = call(&format!("/reports/{}", UUID.to_uppercase())).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, UUID);
    }

    #[actix_web::test]
    async fn a_malformed_uuid_is_a_400_naming_the_parameter() {
        for raw in ["nope", "67e5504410b1426f9247bb680e5fe0c8", "%7B67e55044%7D"] {
            let (status, body) = call(&format!("/reports/{raw}")).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{raw}");
            let text = named(&body).to_string();
            assert!(text.contains("report_uuid"), "{raw}: {text}");
            assert!(text.contains("This value must be a UUID."), "{raw}: {text}");
        }
    }

    #[actix_web::test]
    async fn reads_several_parameters_in_path_order() {
        let other = "00000000-0000-4000-8000-000000000001";
        let (status, body) = call(&format!("/owners/{UUID}/addresses/{other}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, format!("{UUID} {other}"));
    }

    #[actix_web::test]
    async fn every_malformed_parameter_is_named() {
        let (status, body) = call("/owners/x/addresses/y").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let text = named(&body).to_string();
        assert!(text.contains("owner_uuid"), "{text}");
        assert!(text.contains("address_uuid"), "{text}");

        let (status, body) = call(&format!("/owners/{UUID}/addresses/y")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let text = named(&body).to_string();
        assert!(!text.contains("owner_uuid"), "{text}");
        assert!(text.contains("address_uuid"), "{text}");
    }

    #[actix_web::test]
    async fn a_route_with_other_parameters_than_its_handler_reads_is_coffers_mistake() {
        let (status, _) = call(&format!("/wrong/{UUID}/{UUID}")).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    }
}
