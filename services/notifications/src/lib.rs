//! The notifications service: webhook endpoints, event subscriptions, and signed deliveries
//! of Coffer's domain events with retries and a delivery log (docs/webhooks.md).
//!
//! It is being built feature by feature in the rooms every service has (`routes`,
//! `commands`, `domain`, `store`, `events`, `workers`). So far it holds the pure rules:
//! what an endpoint's URL and signing key may be (`endpoints::domain`), which events a
//! subscription names and which of them its filter lets through (`subscriptions::domain`),
//! and how a delivery is signed (`deliveries::domain`).

pub mod deliveries;
pub mod endpoints;
pub mod subscriptions;
