//! A test clock's rules, pure: its states, how far one advance may go, and which times a
//! clock may show.

use coffer_model::timestamp::LAST_INSTANT;
use coffer_model::validation::FieldError;
use serde::Serialize;

use coffer_model::text_enum;

/// The longest one advance may go: three years of 366 days. Each charge date on the way
/// is a step that waits for payments' answers, so a span is work, and it is bounded.
pub const MAX_ADVANCE: i64 = 3 * 366 * 86_400;

text_enum! {
    /// `ready`, or `advancing` while an advance runs.
    pub enum ClockStatus {
        Ready => "ready",
        Advancing => "advancing",
    }
}

/// A clock a test moves by hand; subscriptions on it follow its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TestClock {
    pub uuid: String,
    #[serde(skip)]
    #[schema(ignore)]
    pub owner: String,
    pub frozen_time: i64,
    #[serde(skip)]
    #[schema(ignore)]
    pub target_time: Option<i64>,
    pub status: ClockStatus,
    pub created: i64,
}

/// A clock's time: Unix seconds from the epoch to the end of 2199, the dates a request may
/// name (coffer_model::timestamp).
pub fn frozen_time(raw: Option<i64>) -> Result<i64, Vec<FieldError>> {
    raw.filter(|t| (0..=LAST_INSTANT).contains(t))
        .ok_or_else(|| {
            vec![FieldError::not_valid(
                "frozen_time",
                format!("must be a time in Unix seconds from 0 to {LAST_INSTANT} (2199-12-31)"),
            )]
        })
}

/// Why a clock cannot go to `target`: only forwards, and at most [`MAX_ADVANCE`].
pub fn check_advance(clock: &TestClock, target: i64) -> Result<(), FieldError> {
    if target <= clock.frozen_time {
        return Err(FieldError::not_valid(
            "frozen_time",
            "must be later than the clock's time",
        ));
    }
    if target - clock.frozen_time > MAX_ADVANCE {
        return Err(FieldError::not_valid(
            "frozen_time",
            format!("may be at most {MAX_ADVANCE} seconds (three years) past the clock's time"),
        ));
    }
    Ok(())
}
