//! A service's route table. It registers each operation with actix and keeps the list of
//! them, with the error shape each answers in, so that the API description can be checked
//! against what is routed (every route described, every described operation routed) and
//! each operation's error responses name the shape its route really uses.

use actix_web::http::Method;
use actix_web::{FromRequest, Handler, Responder, web};
use coffer_error::Shape;

/// One routed operation, as the description sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub method: Method,
    pub path: &'static str,
    pub shape: Shape,
    /// Answered without a token (the token endpoint, the JWKS, the test provider's pages).
    pub public: bool,
    /// Kept out of the description: pages for people, not operations of the API.
    pub hidden: bool,
}

/// One path's routes; actix tries a path once, so all its methods share one resource.
struct Resource {
    path: &'static str,
    shape: Shape,
    routes: Vec<(Operation, actix_web::Route)>,
}

/// Operations in the order they were added, grouped by path when registered.
#[derive(Default)]
pub struct RouteTable {
    resources: Vec<Resource>,
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

    fn add(&mut self, method: Method, path: &'static str, route: actix_web::Route) -> &mut Self {
        let operation = Operation {
            method,
            path,
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
