//! A delivery's rules, pure: how it is signed (signature.rs).

pub mod signature;
