//! Deliveries: one signed POST of an event to an endpoint, retried until it lands. So far:
//! where a delivery may connect and the client that enforces it (connect.rs), and how a
//! delivery is signed (domain/).

pub mod connect;
pub mod domain;
