//! Payment agreements (`POST /search/payment-agreements`): RaiseNow's pledges, one-off or
//! recurring, answered from what payments has. A recurring agreement is a subscription, of
//! which payments keeps a copy from billing's events (events.rs); a one-off agreement is a
//! payment source no subscription uses. One SQL view (migration 000014) joins them with
//! their sources' mandates and supporters (docs/decisions/payment-agreements.md).

pub mod commands;
pub mod domain;
pub mod events;
pub mod routes;
pub mod search;
pub mod store;
