//! Event subscriptions: which events go to which endpoint.

pub mod domain;
