//! Webhook endpoints: where an organisation's events are delivered.

pub mod domain;
