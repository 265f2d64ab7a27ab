//! What every payments feature shares, and nothing of any feature: the payment as recorded
//! and answered (its statuses, where its call to the provider stands, its refunds), the
//! request that initialises a payment or a payment source, the card as a donor types it, a
//! payment source as recorded (read for its owner, decided by its donor), the payment
//! method with the instrument it charges, the provider as commands call it, the payment
//! method profiles it is reached by (and which one a request uses), and the check that a
//! caller owns what they touch. Features import this room; it imports none of them.

pub mod announce;
pub mod card;
pub mod connector;
pub mod method;
pub mod operator_name;
pub mod owned_source;
pub mod owner;
pub mod profile;
pub mod profile_choice;
pub mod profile_store;
pub mod record;
pub mod request;
pub mod source;
pub mod source_decision;
pub mod source_store;
pub mod store;
pub mod supporter;
pub mod supporter_request;
pub mod supporter_store;
