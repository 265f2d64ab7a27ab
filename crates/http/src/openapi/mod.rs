//! Coffer's API description (OpenAPI 3.1), built from the code. Each service describes its
//! operations with utoipa (`#[utoipa::path]` on handlers, `ToSchema` on request and response
//! types) and routes them through a [`RouteTable`]; [`Part::new`] puts the two together and
//! adds what every operation shares: its error responses in the shape its route answers in,
//! and the OAuth2 client-credentials scheme. A server serves the whole of its modules' parts
//! at `/openapi.json` and a browsable reference at `/docs` (docs/api.md).

mod errors;
mod links;
mod routes;
mod serve;

use utoipa::PartialSchema;
use utoipa::openapi::path::Operation as Described;
use utoipa::openapi::security::{ClientCredentials, Flow, OAuth2, Scopes, SecurityScheme};
use utoipa::openapi::{Content, Info, OpenApi, Ref, RefOr, Response, Server};

pub use routes::{Operation, RouteTable};

/// For [`route!`](crate::route), which names the type `#[utoipa::path]` makes.
#[doc(hidden)]
pub use pastey;
pub use serve::{configure, document_of, standalone};

use coffer_error::Shape;

/// The scheme every operation but the public ones requires.
pub const SECURITY: &str = "oauth2";

/// The version of SPEC.md's interface the description states.
pub const API_VERSION: &str = "1.0.0";

/// One service's share of the description: what it documents and what it routes.
#[derive(Clone)]
pub struct Part {
    pub doc: OpenApi,
    pub operations: Vec<Operation>,
}

impl Part {
    /// A service's documented operations, completed from its route table: `doc` carries
    /// what the service says as a whole (tags, schemas used only in queries), the table
    /// each routed operation's own description and the schemas it names.
    pub fn new(mut doc: OpenApi, table: &RouteTable) -> Self {
        for d in table.descriptions() {
            doc.paths
                .add_path_operation(&d.path, vec![d.method.clone()], d.operation.clone());
        }
        let schemas = table.schemas();
        if !schemas.is_empty() {
            let components = doc.components.get_or_insert_with(Default::default);
            for (name, schema) in schemas {
                components.schemas.insert(name.clone(), schema.clone());
            }
        }
        let operations = table.operations();
        for op in &operations {
            let Some(item) = doc.paths.paths.get_mut(op.path.as_str()) else {
                continue;
            };
            if let Some(described) = method_of(item, &op.method) {
                complete(described, op);
            }
        }
        Self { doc, operations }
    }
}

/// The whole description of `parts`, as one server (or the gateway) serves it.
pub fn describe(parts: &[Part]) -> OpenApi {
    // The version of the interface the description is of (SPEC.md), not of Coffer's
    // crates: clients compare it with what they were written for.
    let mut info = Info::new("Coffer", API_VERSION);
    info.description = Some(
        "Fundraising payments: one-off and recurring donations, supporters, subscriptions \
         and invoices. Errors use the shapes of docs/errors.md; every operation but the \
         token endpoint takes an OAuth2 client-credentials access token."
            .to_owned(),
    );
    let mut whole = OpenApi::new(info, utoipa::openapi::Paths::new());
    whole.servers = Some(vec![Server::new("/")]);
    let mut named = std::collections::BTreeMap::new();
    for part in parts {
        // Parts share one namespace of schema names; a merge would silently keep one of
        // two different schemas of the same name.
        for (name, schema) in part.doc.components.iter().flat_map(|c| &c.schemas) {
            if let Some(earlier) = named.insert(name.clone(), schema.clone()) {
                assert!(
                    earlier == *schema,
                    "two services describe different schemas named {name}; rename one with \
                     #[schema(as = ...)]"
                );
            }
        }
        whole.merge(part.doc.clone());
    }
    links::link_created(&mut whole);
    let mut components = whole.components.take().unwrap_or_default();
    components.add_security_scheme(
        SECURITY,
        SecurityScheme::OAuth2(OAuth2::new([Flow::ClientCredentials(
            ClientCredentials::new("/oauth2/token", Scopes::new()),
        )])),
    );
    for (name, schema) in [
        ("ErrorItem", errors::ErrorItem::schema()),
        ("ErrorADetail", errors::ErrorADetail::schema()),
        ("ErrorA", errors::ErrorA::schema()),
        ("ErrorB", errors::ErrorB::schema()),
        ("ErrorC", errors::ErrorC::schema()),
        ("OAuthError", errors::OAuthError::schema()),
    ] {
        components.schemas.insert(name.to_owned(), schema);
    }
    whole.components = Some(components);
    whole
}

fn method_of<'a>(
    item: &'a mut utoipa::openapi::PathItem,
    method: &actix_web::http::Method,
) -> Option<&'a mut Described> {
    use actix_web::http::Method;
    match *method {
        Method::GET => item.get.as_mut(),
        Method::POST => item.post.as_mut(),
        Method::PUT => item.put.as_mut(),
        Method::PATCH => item.patch.as_mut(),
        Method::DELETE => item.delete.as_mut(),
        _ => None,
    }
}

/// Statuses every operation can answer besides its own: a head over the limits, a fault,
/// the database busy; and, with a token required, a missing or foreign one.
const SHARED: [(&str, &str); 3] = [
    ("431", "The request headers are too large"),
    (
        "500",
        "Internal Server Error (the cause is logged with the request id)",
    ),
    (
        "503",
        "The database or the broker does not answer; retry later",
    ),
];

fn complete(described: &mut Described, op: &Operation) {
    body_left_out_not_null(described);
    if op.public {
        described.security = Some(Vec::new());
    } else {
        described.security = Some(vec![utoipa::openapi::security::SecurityRequirement::new(
            SECURITY,
            Vec::<String>::new(),
        )]);
        add(described, "401", "Authentication Required", "ErrorC");
        add(
            described,
            "403",
            "Another tenant's object, or a missing permission",
            "ErrorC",
        );
    }
    if has_input(described) {
        add(
            described,
            "400",
            "A property or parameter that is not valid, each named",
            shape_name(op.shape),
        );
    }
    for (status, description) in SHARED {
        add(described, status, description, shape_name(op.shape));
    }
    // Errors the operation lists itself (404, 409, 429, ...) get its shape's body.
    for (status, response) in described.responses.responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        let failed = status.starts_with('4') || status.starts_with('5');
        if !failed || !response.content.is_empty() {
            continue;
        }
        // 401 and 403 answer in shape C, but for the token endpoint's OAuth form.
        let forced = matches!(status.as_str(), "401" | "403") && op.shape != Shape::OAuth;
        let schema = if forced {
            "ErrorC"
        } else {
            shape_name(op.shape)
        };
        response
            .content
            .insert("application/json".to_owned(), json(schema));
    }
}

/// An optional body (`Option<T>` in the route's description) reads as `oneOf: [null, T]`,
/// but a body that is sent must be a JSON object (`null` is a 400, crates/http/src/body.rs):
/// it may only be left out. The body's schema becomes `T`, with `required` left false.
fn body_left_out_not_null(described: &mut Described) {
    use utoipa::openapi::schema::{Schema, SchemaType, Type};
    let Some(body) = described.request_body.as_mut() else {
        return;
    };
    for content in body.content.values_mut() {
        let Some(RefOr::T(Schema::OneOf(one))) = &content.schema else {
            continue;
        };
        let is_null = |s: &RefOr<Schema>| matches!(s, RefOr::T(Schema::Object(o)) if o.schema_type == SchemaType::Type(Type::Null));
        if one.items.len() == 2 && one.items.iter().any(is_null) {
            content.schema = one.items.iter().find(|s| !is_null(s)).cloned();
        }
    }
}

/// Whether the operation reads anything a client can get wrong.
fn has_input(described: &Described) -> bool {
    described.request_body.is_some() || described.parameters.as_ref().is_some_and(|p| !p.is_empty())
}

fn add(described: &mut Described, status: &str, description: &str, schema: &str) {
    described
        .responses
        .responses
        .entry(status.to_owned())
        .or_insert_with(|| {
            let mut response = Response::new(description);
            response
                .content
                .insert("application/json".to_owned(), json(schema));
            RefOr::T(response)
        });
}

fn json(schema: &str) -> Content {
    Content::new(Some(Ref::from_schema_name(schema)))
}

fn shape_name(shape: Shape) -> &'static str {
    match shape {
        Shape::A => "ErrorA",
        Shape::B => "ErrorB",
        Shape::C => "ErrorC",
        Shape::OAuth => "OAuthError",
    }
}
