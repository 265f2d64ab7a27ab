//! Payment service providers: each implements shared/connector.rs's `Connector`, which is
//! all that payments' commands know of them.

pub mod faults;
pub mod metered;
pub mod metrics;
pub mod stripe;
pub mod test_psp;
pub mod test_psp_ledger;
