//! Sources: where bank files come from (an upload through credentials, an SFTP server
//! Coffer polls, or a bank connector), each mapped to one blueprint.

pub mod commands;
pub mod domain;
pub mod routes;
pub mod store;
