use std::future::Future;
use std::pin::Pin;

use actix_web::web;

pub type ReadyFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// One service's share of an HTTP server. The standalone `coffer` binary mounts every
/// module in one app; a service binary mounts just its own.
pub trait Module: Send + Sync + 'static {
    /// Short and stable: names the module in readiness answers and logs.
    fn name(&self) -> &'static str;

    /// Registers the module's routes and its own app data.
    fn configure(&self, cfg: &mut web::ServiceConfig);

    /// The module's share of the API description: every operation it routes, described
    /// (crate::openapi). A module ships it with its first route.
    fn api(&self) -> crate::openapi::Part;

    /// Resolves when the module can serve (its database answers). The error says what is
    /// missing, without internal detail: it is shown on `/health/ready`.
    fn ready(&self) -> ReadyFuture<'_>;

    /// Adds the module's own metrics to the server's registry (served at `/metrics`). Called
    /// for every app the server builds, so a metric already registered is skipped.
    fn register_metrics(&self, _registry: &prometheus::Registry) {}

    /// Starts the module's background loops on the current tokio runtime. The host keeps
    /// the handles and aborts them when it shuts down.
    fn spawn_workers(&self) -> Vec<tokio::task::JoinHandle<()>> {
        Vec::new()
    }
}
