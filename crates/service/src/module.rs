//! The `impl Module` every service writes, written once: a service's lib.rs names only
//! what differs (its app data, its workers' inputs, and any extra routes or metrics).
//!
//! Why a macro in this crate, and not default methods on `coffer_http::Module`: what the
//! services share is `coffer_events` (readiness, the relay's metrics) and, for most,
//! `coffer_partners` (app data), and `coffer_http` depends on neither (nor should it: it
//! is the layer below them). Defaults there could only be built on small traits that the
//! events and partners crates implement, which would make them depend on `coffer_http`
//! for the sake of one impl each. A blanket `impl<T: Service> Module for T` here is
//! refused by the orphan rule (`Module` is foreign to this crate). This crate already sees
//! `coffer_http` and `coffer_events`; partners' app data is passed in by the services that
//! register it, so onboarding (which does not) needs no dependency on it.
//!
//! The expansion names `routes::table`, `routes::part` and `workers::spawn` at the call
//! site: invoke it in the service's crate root, beside `mod routes; mod workers;`. It also
//! names `actix_web`, `prometheus` and `tokio`, which every service depends on.

/// Implements `coffer_http::Module` for a service struct with a `state: web::Data<_>`
/// (whose `store` is the service's `Store`) and an `events: EventWiring`:
///
/// - `configure` registers each field in `app_data` as app data, then
///   `partners(state.store)` if given, then `routes::table()`, then the `configure` hook;
/// - `api` is `routes::part()`; `ready` is the event wiring's readiness;
/// - `register_metrics` runs the `metrics` hook, then registers the events' metrics;
/// - `spawn_workers` is `workers::spawn(&self.<field>, ...)` over the `workers` fields.
///
/// ```ignore
/// coffer_service::module! {
///     Billing: "billing",
///     app_data: [state],
///     partners: coffer_partners::app_data,
///     workers: [state, events],
/// }
/// ```
#[macro_export]
macro_rules! module {
    (
        $ty:ty : $name:literal,
        app_data: [$($data:ident),* $(,)?],
        $(partners: $partners:path,)?
        $(configure: |$cm:ident, $ccfg:ident| $configure:block,)?
        $(metrics: |$mm:ident, $mreg:ident| $metrics:block,)?
        workers: [$($worker:ident),* $(,)?] $(,)?
    ) => {
        impl $crate::__private::coffer_http::Module for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn configure(&self, cfg: &mut ::actix_web::web::ServiceConfig) {
                $(cfg.app_data(self.$data.clone());)*
                $(cfg.app_data($partners(self.state.store.clone()));)?
                routes::table().register(cfg);
                $({
                    let ($cm, $ccfg) = (self, &mut *cfg);
                    $configure
                })?
            }

            fn api(&self) -> $crate::__private::coffer_http::openapi::Part {
                routes::part()
            }

            fn ready(&self) -> $crate::__private::coffer_http::ReadyFuture<'_> {
                ::std::boxed::Box::pin(self.events.ready())
            }

            fn register_metrics(&self, registry: &::prometheus::Registry) {
                $({
                    let ($mm, $mreg) = (self, registry);
                    $metrics
                })?
                $crate::__private::coffer_events::metrics::register(registry);
            }

            fn spawn_workers(&self) -> ::std::vec::Vec<::tokio::task::JoinHandle<()>> {
                workers::spawn($(&self.$worker),*)
            }
        }
    };
}
