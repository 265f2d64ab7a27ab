//! What every payments feature shares, and nothing of any feature: the payment as recorded
//! and answered (its statuses, where its call to the provider stands, its refunds) and the
//! card as a donor types it. Features import this room; it imports none of them.

pub mod card;
pub mod record;
