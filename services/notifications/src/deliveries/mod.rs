//! Deliveries: one signed POST of an event to an endpoint, retried until it lands.

pub mod domain;
