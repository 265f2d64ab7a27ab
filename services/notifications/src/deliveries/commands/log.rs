//! The delivery log through the API: list, show, and redeliver.

use coffer_auth::Caller;
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{PagingLimits, PagingQuery};
use coffer_model::validation::FieldError;
use uuid::Uuid;

use crate::deliveries::domain::log::{TryOutcome, WebhookResponse};
use crate::deliveries::store::responses::{self, Scope};
use crate::deliveries::store::tasks;
use crate::error::NotificationsError;
use crate::state::NotificationsState;

/// 100 tries a page unless asked, at most 1,000.
pub const LIMITS: PagingLimits = PagingLimits::new(100, 1_000);

/// A list request's filters, as sent.
#[derive(Debug, Default)]
pub(crate) struct ListQuery<'a> {
    pub organisation: Option<&'a str>,
    pub account: Option<&'a str>,
    pub endpoint: Option<&'a str>,
    pub event: Option<&'a str>,
    /// `succeeded` or `failed`.
    pub status: Option<&'a str>,
    pub status_code: Option<&'a str>,
    pub paging: PagingQuery,
}

pub(crate) async fn list(
    state: &NotificationsState,
    caller: &Caller,
    q: ListQuery<'_>,
) -> Result<Vec<WebhookResponse>, NotificationsError> {
    let mut errors = Vec::new();
    let paging = q.paging.resolve(LIMITS).map_err(|e| errors.extend(e)).ok();
    let mut id = |property: &str, raw: Option<&str>| {
        raw.and_then(|r| parse_uuid(property, r).map_err(|e| errors.push(e)).ok())
    };
    let organisation = id("organisation_uuid", q.organisation);
    let account = id("account_uuid", q.account).map(|u| u.to_string());
    let endpoint = id("webhook_configuration_uuid", q.endpoint).map(|u| u.to_string());
    let event = id("event_uuid", q.event).map(|u| u.to_string());
    let failed = match q.status.map(TryOutcome::parse) {
        None => None,
        Some(Some(TryOutcome::Succeeded)) => Some(false),
        Some(Some(TryOutcome::Failed)) => Some(true),
        Some(None) => {
            errors.push(FieldError::invalid_choice(
                "status",
                "must be succeeded or failed",
            ));
            None
        }
    };
    let status_code = match q.status_code {
        None => None,
        Some(raw) => match raw.parse::<i32>() {
            Ok(code) if (0..=999).contains(&code) && raw.bytes().all(|b| b.is_ascii_digit()) => {
                Some(code)
            }
            _ => {
                errors.push(FieldError::not_valid(
                    "status_code",
                    "must be a status code from 0 to 999",
                ));
                None
            }
        },
    };
    let Some(paging) = paging.filter(|_| errors.is_empty()) else {
        return Err(NotificationsError::invalid_all(errors));
    };
    let scope = Scope {
        organisations: caller.organisations_listed(organisation)?,
        account,
        endpoint,
        event,
        failed,
        status_code,
    };
    Ok(state
        .store
        .query(move |db| responses::list(db, &scope, paging.offset(), paging.limit()))
        .await?)
}

/// A try the caller may see.
pub(crate) async fn show(
    state: &NotificationsState,
    caller: &Caller,
    try_uuid: Uuid,
) -> Result<WebhookResponse, NotificationsError> {
    let id = try_uuid.to_string();
    let entry = state
        .store
        .query(move |db| responses::find(db, &id))
        .await?
        .ok_or_else(|| NotificationsError::not_found("Webhook response"))?;
    let organisation = entry
        .organisation_uuid
        .parse()
        .map_err(NotificationsError::internal)?;
    caller.require_organisation(organisation)?;
    Ok(entry)
}

/// Sends a try's event to its endpoint once more, now: its task is due again with one
/// more try allowed, whatever it stood at. The endpoint must be on.
pub(crate) async fn redeliver(
    state: &NotificationsState,
    caller: &Caller,
    try_uuid: Uuid,
) -> Result<WebhookResponse, NotificationsError> {
    let entry = show(state, caller, try_uuid).await?;
    let (task, endpoint) = (
        entry.task_uuid.clone(),
        entry.webhook_configuration_uuid.clone(),
    );
    let now_ms = state.clock.unix_ms();
    let secrets = state.secrets.clone();
    state
        .store
        .run(move |db| {
            db.write_tx(|tx| {
                let on = crate::endpoints::store::find(tx, &secrets, &endpoint)?.map(|e| e.enabled);
                match on {
                    None => return Err(NotificationsError::not_found("Webhook endpoint")),
                    Some(false) => {
                        return Err(NotificationsError::invalid(
                            "webhook_configuration_uuid",
                            "the endpoint is turned off: turn it on (PATCH enabled: true) first",
                        ));
                    }
                    Some(true) => {}
                }
                if tasks::find(tx, &task)?.is_none() {
                    return Err(NotificationsError::not_found("Delivery"));
                }
                tasks::again(tx, &task, now_ms)?;
                Ok(())
            })
        })
        .await?;
    state.wake.notify_one();
    Ok(entry)
}
