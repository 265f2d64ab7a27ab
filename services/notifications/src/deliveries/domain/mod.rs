//! A delivery's rules, pure: where it may connect (address_policy.rs), how it is signed
//! (signature.rs) and sent (request.rs), what its answer means (verdict.rs) and when it is
//! tried again (schedule.rs), and how each try is logged (log.rs); a task and its states (task.rs).

pub mod address_policy;
pub mod log;
pub mod request;
pub mod schedule;
pub mod signature;
pub mod task;
pub mod verdict;
