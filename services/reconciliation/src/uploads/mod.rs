//! Files uploaded under a source's prefix: upload credentials (SPEC.md's upload procedure),
//! the object store they land in (S3 in distributed mode, a local directory behind the
//! same POST protocol in `coffer dev`), and the pass that finds new ones and reads each
//! once.

pub mod commands;
pub mod local;
pub mod object_store;
pub mod routes;
