//! Files uploaded under a source's prefix: upload credentials (SPEC.md's upload procedure)
//! and the pass that finds new ones and reads each once. The object store they land in
//! (S3 in distributed mode, a local directory behind the same POST protocol in
//! `coffer dev`) is `crate::object_store`, which the state holds.

pub mod commands;
pub mod routes;
pub mod standalone;
