//! A subscription's rules, pure: the event it names (event_name.rs), the filter that picks
//! the events it wants (filter/), what a request may set (request.rs) and
//! what it is (record.rs), and how many an organisation may have (bound.rs).

pub mod bound;
pub mod event_name;
pub mod filter;
pub mod record;
pub mod request;

pub use record::{EventSubscriptionView, Subscription};
pub use request::Fields;
