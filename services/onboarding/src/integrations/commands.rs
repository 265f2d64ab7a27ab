//! Integration use cases: listing them, and disabling one.

use coffer_auth::Caller;
use coffer_events::append;
use coffer_events::catalogue::PARTNER_INTEGRATION_DISABLED;
use uuid::Uuid;

use super::events;
use super::store::{self as integrations, Filter, IntegrationRow};
use crate::error::OnboardingError;
use crate::state::OnboardingState;

/// A list has no paging (SPEC.md shows a plain array); at most this many.
const LIST_CAP: i64 = 500;

/// What a caller may see: a partner its own, an organisation's client its
/// organisations', a platform caller all.
fn scope(caller: &Caller, mut filter: Filter) -> Filter {
    if caller.is_platform() {
        return filter;
    }
    if let Some(partner) = caller.partner() {
        filter.partner = Some(partner.to_string());
        return filter;
    }
    let mine: Vec<String> = caller
        .organisation_filter()
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect();
    filter.organisations = Some(match filter.organisations {
        Some(asked) => asked.into_iter().filter(|o| mine.contains(o)).collect(),
        None => mine,
    });
    filter
}

pub(crate) async fn list(
    state: &OnboardingState,
    caller: &Caller,
    filter: Filter,
) -> Result<Vec<IntegrationRow>, OnboardingError> {
    let filter = scope(caller, filter);
    Ok(state
        .store
        .query(move |c| integrations::list(c, &filter, LIST_CAP))
        .await?)
}

fn may_touch(caller: &Caller, row: &IntegrationRow) -> bool {
    caller.is_platform()
        || caller
            .partner()
            .is_some_and(|p| p.to_string() == row.partner_uuid)
        || (caller.partner().is_none()
            && row
                .organisation_uuid
                .parse()
                .is_ok_and(|o| caller.can_access_organisation(o)))
}

/// Ends the partner's access to the organisation; disabling a disabled one changes
/// nothing and answers it as it is.
pub(crate) async fn disable(
    state: &OnboardingState,
    caller: &Caller,
    uuid: Uuid,
) -> Result<IntegrationRow, OnboardingError> {
    let key = uuid.to_string();
    let found = state
        .store
        .query(move |c| integrations::find(c, &key))
        .await?
        .filter(|row| may_touch(caller, row))
        .ok_or(OnboardingError::not_found("partner integration"))?;
    let now = state.clock.unix();
    let outbox = state.outbox.clone();
    let row = state
        .store
        .query(move |c| {
            c.write_tx(|tx| {
                if integrations::disable(tx, &found.uuid, now)? {
                    let row = integrations::find(tx, &found.uuid)?.unwrap_or(found);
                    append(
                        tx,
                        &[events::of(&outbox, &PARTNER_INTEGRATION_DISABLED, &row)],
                        None,
                    )?;
                    Ok(row)
                } else {
                    Ok(integrations::find(tx, &found.uuid)?.unwrap_or(found))
                }
            })
        })
        .await?;
    state.outbox.committed();
    Ok(row)
}
