//! Refunds: part or all of what a succeeded payment has not yet given back, recorded before
//! its provider is asked and settled by asking when the answer is lost.

pub mod commands;
pub mod routes;
pub mod store;
