//! The terms a create or update sets on a subscription (its references aside, which are
//! checked against what billing knows by the commands).

use coffer_model::over_maximum;
use coffer_model::validation::FieldError;

use super::record::Subscription;
use super::request::Fields;

pub fn apply_terms(s: &mut Subscription, f: Fields) {
    if let Some(amount) = f.amount {
        s.amount = amount;
    }
    if let Some((shown, zone)) = f.timezone {
        s.timezone = shown;
        s.zone = zone;
    }
    if let Some((text, interval)) = f.recurring_interval {
        s.recurring_interval = text;
        s.interval = interval;
    }
    if let Some(from) = f.planned_effective_from {
        s.planned_effective_from = from;
        if let Some(date) = from {
            s.anchor_date = date;
        }
    }
    if let Some(end) = f.planned_end {
        s.planned_end = end;
    }
    if let Some(custom) = f.custom_parameters {
        s.custom_parameters = custom;
    }
    if let Some(service) = f.service_parameters {
        s.service_parameters = service;
    }
}

/// Whether an update moves the charge dates (they are computed again from today).
pub fn reschedules(f: &Fields) -> bool {
    f.recurring_interval.is_some() || f.timezone.is_some() || f.planned_effective_from.is_some()
}

/// An updated subscription's terms, checked as a whole: an update's amount meets the
/// subscription's currency only here.
pub fn check_terms(s: &Subscription) -> Result<(), Vec<FieldError>> {
    if s.amount > s.currency.max_minor_units() {
        return Err(vec![over_maximum("amount", s.currency)]);
    }
    if let (Some(from), Some(end)) = (s.planned_effective_from, s.planned_end)
        && end < from
    {
        return Err(vec![FieldError::not_valid(
            "planned_end",
            "must not be before planned_effective_from",
        )]);
    }
    Ok(())
}
