//! Identity's diesel queries. Each function takes a pooled connection of either backend
//! and returns diesel's `QueryResult`; callers run them through `Store::query`.

pub mod accounts;
pub mod addresses;
pub mod billing;
pub mod clients;
pub mod keys;
pub mod metadata;
pub mod organisations;
pub mod rows;
