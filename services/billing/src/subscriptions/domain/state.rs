//! A subscription's states and what moves it between them (docs/billing.md). Pure: each
//! function takes today's local date and answers the new state or why not.

use chrono::NaiveDate;
use coffer_model::validation::FieldError;

use super::record::Subscription;
use super::status::SubscriptionStatus::{self, Active, Cancelled, Pending, Suspended};
use crate::schedule::Schedule;

/// Why a transition was refused: the request itself (400) or the subscription's state (409).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Invalid(Vec<FieldError>),
    Conflict(String),
}

/// A move a caller asks for, as a refusal words it.
#[derive(Debug, Clone, Copy)]
enum Move {
    Activate,
    Cancel,
    Suspend,
}

impl Move {
    fn done(self) -> &'static str {
        match self {
            Move::Activate => "activated",
            Move::Cancel => "cancelled",
            Move::Suspend => "suspended",
        }
    }
}

fn conflict(refused: Move, s: &Subscription) -> Refusal {
    Refusal::Conflict(format!(
        "{} {} subscription cannot be {}",
        article(s.status.as_str()),
        s.status,
        refused.done()
    ))
}

/// The first charge date from `today` on, as an instant, for an active subscription.
pub fn schedule_from(s: &mut Subscription, today: NaiveDate) {
    let schedule = Schedule {
        interval: s.interval.clone(),
        anchor: s.anchor_date,
    };
    s.next_due_date = schedule
        .on_or_after(today)
        .map(|date| crate::schedule::due_instant(s.zone, date));
}

/// pending or suspended → active; charging resumes from today (a suspension's dates are
/// never charged afterwards).
pub fn activate(s: &mut Subscription, today: NaiveDate, now: i64) -> Result<(), Refusal> {
    if !matches!(s.status, Pending | Suspended) {
        return Err(conflict(Move::Activate, s));
    }
    s.status = Active;
    s.suspension_start = None;
    s.suspension_end = None;
    s.planned_since.get_or_insert(now);
    schedule_from(s, today);
    Ok(())
}

/// pending, active or suspended → cancelled; nothing is charged any more.
pub fn cancel(s: &mut Subscription, now: i64) -> Result<(), Refusal> {
    if !matches!(s.status, Pending | Active | Suspended) {
        return Err(conflict(Move::Cancel, s));
    }
    s.status = Cancelled;
    s.next_due_date = None;
    s.ended_at = Some(now);
    Ok(())
}

/// active → suspended, or a suspended subscription's suspension changed. The start defaults
/// to today and may not be before it; once a suspension is in effect its start stays.
pub fn suspend(
    s: &mut Subscription,
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    today: NaiveDate,
) -> Result<(), Refusal> {
    if !s.status.is_scheduled() {
        return Err(conflict(Move::Suspend, s));
    }
    let in_effect = s.status == Suspended && s.suspension_start.is_some_and(|d| d <= today);
    let start = match (in_effect, start) {
        (true, Some(asked)) if Some(asked) != s.suspension_start => {
            return Err(Refusal::Conflict(
                "The suspension is in effect; its start cannot change".into(),
            ));
        }
        (true, _) => s.suspension_start.unwrap_or(today),
        (false, Some(asked)) if asked < today => {
            return Err(Refusal::Invalid(vec![FieldError::not_valid(
                "suspension_start",
                "must not be before today in the subscription's time zone",
            )]));
        }
        (false, asked) => asked.unwrap_or(today),
    };
    if end.is_some_and(|e| e <= start) {
        return Err(Refusal::Invalid(vec![FieldError::not_valid(
            "suspension_end",
            "must be after suspension_start",
        )]));
    }
    s.status = SubscriptionStatus::Suspended;
    s.suspension_start = Some(start);
    s.suspension_end = end;
    Ok(())
}

/// "An active subscription", "A pending subscription".
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "An"
    } else {
        "A"
    }
}
