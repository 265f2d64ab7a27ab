//! A subscription's rules, pure: what it is (record.rs), what a request may set
//! (request.rs, terms.rs) and how it moves between its states (state.rs).

pub mod record;
pub mod request;
pub mod state;
pub mod status;
pub mod terms;

pub use record::Subscription;
pub use request::Fields;
pub use state::Refusal;
pub use status::SubscriptionStatus;
