//! The donor's payment page (docs/payments.md, "The payment page"): where a payment made
//! through a real provider that needs its donor (3-D Secure) sends them, to finish it with
//! the provider's own browser script.

pub mod commands;
pub mod domain;
pub mod routes;
