//! Stripe, a real payment provider: client.rs speaks its HTTP API, objects.rs reads its
//! objects, mapping.rs says what its answers mean for a payment. The connector that puts
//! them behind shared/connector.rs's trait follows (issue 33); until then these are used
//! by the tests against localstripe (services/payments/tests/stripe.rs).

pub mod client;
pub mod mapping;
pub mod objects;
