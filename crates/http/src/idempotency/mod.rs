//! `Idempotency-Key` on creating POSTs (API.md, Conventions): the same key with the same
//! body within 24 hours replays the first response; the same key with another body is 409.
//! The first response is stored in the transaction of its effect, so an effect without its
//! stored response (or the reverse) cannot exist.
//!
//! A create takes one of three ways, each in a file of its own:
//! - once.rs: the effect and its answer commit in one transaction ([`Once`], [`run`]);
//! - reservation.rs: the effect calls outside Coffer between two transactions, so the key is
//!   held in progress by the first and answered by the second ([`reserve`], [`complete`]);
//! - hold_while.rs: the effect spans several transactions and is safe to run again, so the
//!   key is held while it runs ([`hold_while`], [`finish`], [`give_back`]).
//!
//! key.rs reads the header and digests the request; answers.rs keeps a first answer (plain
//! or sealed) and gives it again; resealing.rs seals kept answers again after a rotation.

mod answers;
mod hold_while;
mod key;
mod once;
mod resealing;
mod reservation;
mod transaction_failure;

use actix_web::http::StatusCode;

pub use hold_while::{Held, finish, give_back, hold_while};
pub use key::{IdempotencyKey, request_hash};
pub use once::{Once, run, run_sealed};
pub use resealing::reseal_answers;
pub use reservation::{Reservation, complete, earlier, hold, release, reserve};

/// How long a key's first answer is kept and replayed (API.md: 24 hours).
const WINDOW_MS: i64 = 24 * 3600 * 1000;

/// An effect's outcome: status and JSON body.
pub type Outcome = (StatusCode, serde_json::Value);
