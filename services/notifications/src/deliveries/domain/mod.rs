//! A delivery's rules, pure: the name it carries (named.rs), where it may connect (the
//! address policy, shared with reconciliation's SFTP sources in coffer_http), how it is
//! signed (signature.rs) and sent (request.rs), what its answer means (verdict.rs) and when
//! it is tried again (schedule.rs), and how each try is logged (log.rs); a task and its
//! states (task.rs), and how a sender's tries are shared between endpoints and
//! organisations (share.rs).

/// Kept under its old path for callers outside this crate (`coffer bench-deliveries`).
pub use coffer_http::address_policy;
pub mod log;
pub mod named;
pub mod request;
pub mod schedule;
pub mod share;
pub mod signature;
pub mod task;
pub mod verdict;
