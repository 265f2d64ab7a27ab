//! Payments' background loops, all listed here; each calls commands, as routes do.
//!
//! - `charges::send_forever`: sends the charges billing's attempts recorded.
//! - `charges::settle_forever`: settles calls to the provider that were never answered.
//! - `search::counts::fold_forever` (in search/counts.rs): folds kept payment counts.

pub mod charges;
