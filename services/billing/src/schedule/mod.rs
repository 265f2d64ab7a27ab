//! When a subscription charges: its interval (interval.rs) and its dates (dates.rs).

pub mod dates;
pub mod interval;

pub use dates::{Schedule, due_instant, local_date};
pub use interval::{Interval, IntervalError};
