//! A delivery task: one event owed to one endpoint, and where it stands.

/// Where a task stands; stored as its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// Waiting for its next try (or in one, until the try's lease ends).
    Pending,
    Delivered,
    /// Its tries ran out, or the endpoint answered 410.
    Failed,
    /// Its endpoint was deleted or turned off before its turn came.
    Dropped,
}

impl TaskState {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::Delivered => "delivered",
            TaskState::Failed => "failed",
            TaskState::Dropped => "dropped",
        }
    }

    pub fn parse(raw: &str) -> Option<TaskState> {
        [
            TaskState::Pending,
            TaskState::Delivered,
            TaskState::Failed,
            TaskState::Dropped,
        ]
        .into_iter()
        .find(|s| s.as_str() == raw)
    }
}

/// How long a try may take before another sender may claim its task again: the receiver's
/// 15 s and room for recording the answer.
pub const LEASE_MS: i64 = 60_000;

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
