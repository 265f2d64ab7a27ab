//! An invoice's rules, pure: what it is (record.rs), how one is drafted (charging.rs),
//! what a manual one may carry (manual.rs), how it moves from open to paid or cancelled
//! (state.rs) and what follows a failed charge (dunning.rs).

pub mod charging;
pub mod dunning;
pub mod manual;
pub mod record;
pub mod state;
pub mod status;

pub use record::{ChargeAttempt, Invoice};
pub use status::{AttemptStatus, InvoiceReason, InvoiceStatus};
