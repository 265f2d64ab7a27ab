//! Bank files: every file received (uploaded under a source's prefix, fetched from an
//! SFTP server, placed by a connector, or sent to the deprecated execute operation) is
//! read once, and its report and events are written in one transaction.

pub mod commands;
pub mod domain;
pub mod routes;
pub mod store;
pub mod turns;
