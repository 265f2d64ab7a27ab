//! The scheduler: it invoices the subscriptions that fell due and starts their charge
//! attempts, retries invoices whose next try has come, ends suspensions and announces
//! charges ahead. Several replicas may run it at once: on PostgreSQL each claims its rows
//! with `FOR UPDATE SKIP LOCKED`, and a unique index allows one invoice per charge date,
//! so no charge date is invoiced twice. It has no routes: the scheduler worker and test
//! clocks run its passes.

pub(crate) mod commands;
pub mod domain;
pub(crate) mod events;
pub(crate) mod store;

pub use commands::tick;
