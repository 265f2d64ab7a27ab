//! An endpoint's rules, pure: the URL it may have (address.rs) and its signing key
//! (key.rs).

pub mod address;
pub mod key;
