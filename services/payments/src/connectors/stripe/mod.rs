//! Stripe, a real payment provider: client.rs speaks its HTTP API, objects.rs reads its
//! objects, mapping.rs says what its answers mean for a payment, and connector.rs puts
//! them behind shared/connector.rs's trait, one connector account at a time. What Stripe
//! tells a connector account's endpoint is checked by signature.rs and read by notice.rs.
//! What a test server of the API (localstripe) does otherwise is said in test_server.rs.

pub mod client;
pub mod connector;
pub mod mapping;
pub mod notice;
pub mod objects;
pub mod signature;
pub mod test_server;
