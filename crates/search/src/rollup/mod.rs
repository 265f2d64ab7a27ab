//! Searches answered from roll-ups instead of rows: counts and sums a service keeps per
//! group of counted columns and UTC day, with the day's payments per quarter hour, and
//! per custom parameter value. What of a filter they answer (span.rs), how a day's
//! quarters are kept (quarters.rs), where they are (tables.rs), reading them with the
//! payments a `created` bound cuts out of a day (read.rs, parameters.rs), and which index
//! a page is read along on SQLite (ordered.rs).

mod ordered;
mod parameters;
pub mod quarters;
pub mod read;
pub mod span;
pub mod tables;

pub use read::{Faulted, Reading};
pub use span::{Days, Span, Split, days, only_counted, split};
pub use tables::{Ordered, Parameters, Rollups};
