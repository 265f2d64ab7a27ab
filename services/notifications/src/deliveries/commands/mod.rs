//! Deliveries' use cases. A try runs in three steps, and only the middle one leaves the
//! process: `claim` takes due tasks and logs each try as begun (one transaction), `attempt`
//! sends it (no transaction open), and `record` writes the answer and what follows from it
//! (one transaction for many answers). A sender that stops between the steps leaves the
//! task to be claimed again when its lease ends: the receiver may get it twice, with the
//! same `webhook-id`. The API's use cases are in `log` (list, show, redeliver), the
//! retention's in `purge`.

pub mod attempt;
pub mod claim;
pub mod log;
pub mod purge;
pub mod record;
pub mod still_on;
