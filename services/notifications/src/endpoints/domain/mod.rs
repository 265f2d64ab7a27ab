//! An endpoint's rules, pure: the URL it may have (address.rs), its signing key (key.rs),
//! what a request may set (request.rs), what it is (record.rs), and how many an
//! organisation may have (bound.rs).

pub mod address;
pub mod bound;
pub mod key;
pub mod record;
pub mod request;

pub use record::{Endpoint, EndpointView};
pub use request::Fields;
