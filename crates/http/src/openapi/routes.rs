//! A service's route table. It registers each operation with actix and keeps the list of
//! them, with the error shape each answers in, so that the API description can be checked
//! against what is routed (every route described, every described operation routed) and
//! each operation's error responses name the shape its route really uses.
//!
//! An operation of the API is added with [`route!`](crate::route): its method and path are
//! read from the handler's `#[utoipa::path]`, so each path is written once, and the table
//! carries the handler's description (and the schemas it names) to [`super::Part::new`], so
//! no second list of handlers is kept for the description. Pages for people (no
//! `#[utoipa::path]`) are added with `get`/`post` and a path.

use actix_web::http::Method;
use actix_web::{FromRequest, Handler, Responder, web};
use coffer_error::Shape;
use utoipa::openapi::path::{HttpMethod, Operation as Described};
use utoipa::openapi::{RefOr, schema::Schema};

/// One routed operation, as the description sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub method: Method,
    pub path: String,
    pub shape: Shape,
    /// Answered without a token (the token endpoint, the JWKS, the test provider's pages).
    pub public: bool,
    /// Kept out of the description: pages for people, not operations of the API.
    pub hidden: bool,
}

/// One path's routes; actix tries a path once, so all its methods share one resource.
struct Resource {
    path: String,
    shape: Shape,
    routes: Vec<(Operation, actix_web::Route)>,
}

/// One operation as its handler's `#[utoipa::path]` describes it.
pub(super) struct DescribedOperation {
    pub(super) path: String,
    pub(super) method: HttpMethod,
    pub(super) operation: Described,
}

/// Operations in the order they were added, grouped by path when registered.
#[derive(Default)]
pub struct RouteTable {
    resources: Vec<Resource>,
    /// What the handlers added with [`route!`](crate::route) say of themselves, in order.
    described: Vec<DescribedOperation>,
    /// The schemas those descriptions name, for the description's components.
    schemas: Vec<(String, RefOr<Schema>)>,
    shape: Shape,
    public: bool,
    hidden: bool,
}

impl RouteTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the operations `f` adds with errors in `shape` (B, the default, otherwise).
    pub fn shaped(&mut self, shape: Shape, f: impl FnOnce(&mut Self)) -> &mut Self {
        let before = std::mem::replace(&mut self.shape, shape);
        f(self);
        self.shape = before;
        self
    }

    /// Adds operations that take no token.
    pub fn public(&mut self, f: impl FnOnce(&mut Self)) -> &mut Self {
        let before = std::mem::replace(&mut self.public, true);
        f(self);
        self.public = before;
        self
    }

    /// Adds routes that are not operations of the API (pages a browser opens).
    pub fn hidden(&mut self, f: impl FnOnce(&mut Self)) -> &mut Self {
        let before = std::mem::replace(&mut self.hidden, true);
        f(self);
        self.hidden = before;
        self
    }

    pub fn get<F, A>(&mut self, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::GET, path, web::get().to(handler))
    }

    pub fn post<F, A>(&mut self, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::POST, path, web::post().to(handler))
    }

    pub fn put<F, A>(&mut self, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::PUT, path, web::put().to(handler))
    }

    pub fn patch<F, A>(&mut self, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::PATCH, path, web::patch().to(handler))
    }

    pub fn delete<F, A>(&mut self, path: &'static str, handler: F) -> &mut Self
    where
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::DELETE, path, web::delete().to(handler))
    }

    /// Adds the operation `P` describes (the `__path_` type `#[utoipa::path]` makes for
    /// `handler`): its methods and path, and its description with the schemas it names.
    /// Called through [`route!`](crate::route), which names `P` from the handler.
    pub fn described<P, F, A>(&mut self, handler: F) -> &mut Self
    where
        P: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>,
        F: Handler<A>,
        A: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        let path = P::path();
        let mut described = P::operation();
        // As utoipa's own `paths(...)` list does: the handler's tags join its operation.
        let tags = <P as utoipa::__dev::Tags>::tags();
        if !tags.is_empty() {
            let own = described.tags.get_or_insert_with(Vec::new);
            own.extend(tags.into_iter().map(str::to_owned));
        }
        // A hidden route is routed but kept out of the description, annotated or not.
        if !self.hidden {
            P::schemas(&mut self.schemas);
        }
        for method in P::methods() {
            let actix = actix_method(&method);
            if !self.hidden {
                self.described.push(DescribedOperation {
                    path: path.clone(),
                    method,
                    operation: described.clone(),
                });
            }
            self.add(
                actix.clone(),
                path.clone(),
                web::method(actix).to(handler.clone()),
            );
        }
        self
    }

    /// The descriptions of the operations added with [`route!`](crate::route).
    pub(super) fn descriptions(&self) -> &[DescribedOperation] {
        &self.described
    }

    /// The schemas those descriptions name.
    pub(super) fn schemas(&self) -> &[(String, RefOr<Schema>)] {
        &self.schemas
    }

    fn add(
        &mut self,
        method: Method,
        path: impl Into<String>,
        route: actix_web::Route,
    ) -> &mut Self {
        let path = path.into();
        let operation = Operation {
            method,
            path: path.clone(),
            shape: self.shape,
            public: self.public,
            hidden: self.hidden,
        };
        match self.resources.iter_mut().find(|r| r.path == path) {
            Some(resource) => {
                // One path answers in one shape: its 405 and its bad path ids do too.
                assert_eq!(resource.shape, self.shape, "{path} is routed in two shapes");
                resource.routes.push((operation, route));
            }
            None => self.resources.push(Resource {
                path,
                shape: self.shape,
                routes: vec![(operation, route)],
            }),
        }
        self
    }

    /// Every operation added, in order.
    pub fn operations(&self) -> Vec<Operation> {
        self.resources
            .iter()
            .flat_map(|r| r.routes.iter().map(|(o, _)| o.clone()))
            .collect()
    }

    /// Hands the routes to actix, one resource per path.
    pub fn register(self, cfg: &mut web::ServiceConfig) {
        for resource in self.resources {
            let mut service = web::resource(resource.path);
            if resource.shape != Shape::default() {
                service = service.app_data(resource.shape);
            }
            for (_, route) in resource.routes {
                service = service.route(route);
            }
            cfg.service(service);
        }
    }
}

fn actix_method(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Trace => Method::TRACE,
    }
}

/// Adds a handler annotated with `#[utoipa::path]` to a [`RouteTable`], at the method and
/// path its annotation states: `route!(t, create)`, or `route!(t, commands::create)` for
/// a handler in another module. The path lives in the annotation alone.
#[macro_export]
macro_rules! route {
    ($table:expr, $handler:ident) => {
        $crate::openapi::pastey::paste! {
            $table.described::<[<__path_ $handler>], _, _>($handler)
        }
    };
    ($table:expr, $module:ident :: $($rest:tt)+) => {
        $crate::route!(@in $table, [$module] $($rest)+)
    };
    (@in $table:expr, [$($module:ident)::+] $next:ident :: $($rest:tt)+) => {
        $crate::route!(@in $table, [$($module)::+ :: $next] $($rest)+)
    };
    (@in $table:expr, [$($module:ident)::+] $handler:ident) => {
        $crate::openapi::pastey::paste! {
            $table.described::<$($module::)+ [<__path_ $handler>], _, _>($($module::)+ $handler)
        }
    };
}
