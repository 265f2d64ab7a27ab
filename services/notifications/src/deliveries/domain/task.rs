//! A delivery task: one event owed to one endpoint, and where it stands.

use coffer_model::text_enum;

text_enum! {
    /// Where a task stands; stored as its name.
    pub enum TaskState {
        /// Waiting for its next try (or in one, until the try's lease ends).
        Pending => "pending",
        Delivered => "delivered",
        /// Its tries ran out, or the endpoint answered 410.
        Failed => "failed",
        /// Its endpoint was deleted or turned off before its turn came.
        Dropped => "dropped",
    }
}

/// How long a try may take before another sender may claim its task again: the receiver's
/// 15 s and room for recording the answer.
pub const LEASE_MS: i64 = 60_000;
/// The longest a try takes: how long a receiver has to answer, in ms.
pub const TRY_MS: u64 = 15_000;

/// The lease of a try that may wait behind `rounds` full rounds of slots (its endpoint's
/// and its organisation's; `share::Limits::rounds`) before it is made: [`LEASE_MS`] and a
/// try's time for each, so a try claimed ahead is not claimed again while it waits.
pub fn lease_ms(rounds: usize) -> i64 {
    let rounds = i64::try_from(rounds).unwrap_or(i64::MAX);
    LEASE_MS.saturating_add(rounds.saturating_mul(TRY_MS as i64))
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub uuid: String,
    pub event_uuid: String,
    pub event_name: String,
    pub endpoint_uuid: String,
    pub organisation_uuid: String,
    pub account_uuid: Option<String>,
    pub object_uuid: String,
    pub body: String,
    pub state: TaskState,
    pub tries: i32,
    pub max_tries: i32,
    pub due_ms: i64,
}

/// Where a task stands, without its body: what recording an answer reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub uuid: String,
    pub event_name: String,
    pub endpoint_uuid: String,
    pub state: TaskState,
    pub tries: i32,
    pub max_tries: i32,
}

impl Standing {
    /// Whether the event is notifications' own: when its delivery fails, nothing is
    /// emitted, so a failing endpoint subscribed to those events cannot feed itself.
    pub fn is_own_event(&self) -> bool {
        self.event_name.contains(".event.notifications.")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_try_waiting_behind_full_rounds_of_slots_is_held_a_try_longer_for_each() {
        assert_eq!(lease_ms(0), 60_000);
        assert_eq!(lease_ms(1), 75_000);
        assert_eq!(lease_ms(4), 120_000);
    }

    #[test]
    fn states_read_back_as_written() {
        for s in [
            TaskState::Pending,
            TaskState::Delivered,
            TaskState::Failed,
            TaskState::Dropped,
        ] {
            assert_eq!(TaskState::parse(s.as_str()), Some(s));
        }
        assert_eq!(TaskState::parse("sent"), None);
    }
}
