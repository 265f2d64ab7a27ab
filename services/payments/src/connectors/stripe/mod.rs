//! Stripe, a real payment provider: client.rs speaks its HTTP API, objects.rs reads its
//! objects, mapping.rs says what its answers mean for a payment, and connector.rs puts
//! them behind shared/connector.rs's trait, one connector account at a time, with payment
//! sources in sources.rs and the payment page's part in donor_page.rs. What Stripe
//! tells a connector account's endpoint is checked by signature.rs and read by notice.rs.
//! What a test server of the API (localstripe) does otherwise is said in test_server.rs.

pub mod client;
pub mod connector;
pub mod donor_page;
pub mod mapping;
pub mod notice;
pub mod objects;
pub mod page_access;
pub mod signature;
pub mod sources;
pub mod test_server;
