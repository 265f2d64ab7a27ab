//! A delivery's rules, pure: where it may connect (address_policy.rs) and how it is
//! signed (signature.rs).

pub mod address_policy;
pub mod signature;
