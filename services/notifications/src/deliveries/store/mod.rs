//! Deliveries in the database: tasks (tasks.rs) and the log of tries (responses.rs).

pub mod responses;
pub mod tasks;
