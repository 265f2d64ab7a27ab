#![allow(dead_code)]
pub use coffer_testkit::probe::*;
