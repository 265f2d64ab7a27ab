//! Deliveries: one signed POST of an event to an endpoint, tried until it lands, and the
//! log of every try (docs/webhooks.md). The consumer that owes them (events.rs), the rules
//! (domain/), the three steps of a try (commands/), the client that enforces where a try
//! may go (connect.rs), and what Prometheus sees of it (metrics.rs).

pub mod commands;
pub mod connect;
pub mod domain;
pub mod events;
pub mod metrics;
pub mod routes;
pub mod store;
