//! A subscription's rules, pure: the event it names (event_name.rs) and the filter that
//! picks the events it wants (filter.rs, expression.rs).

pub mod event_name;
pub mod expression;
pub mod filter;
