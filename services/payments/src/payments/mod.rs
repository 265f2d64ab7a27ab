//! Payments: initialise, read (and, to come, cancel, refund, search).

pub mod changes;
pub mod commands;
pub mod domain;
pub mod events;
pub mod intent;
pub mod refunds;
pub mod request;
pub mod routes;
pub mod store;
pub mod test_psp_pages;
