//! The delivery log over HTTP: read the request, call one command, render.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, OptionalJson, PathUuid};
use coffer_model::paging::PagingQuery;
use serde::Deserialize;

use super::commands::log;
use super::domain::log::{WebhookResponseItem, WebhookResponseView};
use crate::state::NotificationsState;

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
    account_uuid: Option<String>,
    webhook_configuration_uuid: Option<String>,
    event_uuid: Option<String>,
    status: Option<String>,
    status_code: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

/// The caller's delivery tries, newest first, a page at a time.
#[utoipa::path(get, path = "/webhook-responses", operation_id = "listWebhookResponses", tag = "Webhooks",
    params(("organisation_uuid" = Option<uuid::Uuid>, Query, description = "Only this organisation's"),
        ("account_uuid" = Option<uuid::Uuid>, Query, description = "Only this account's"),
        ("webhook_configuration_uuid" = Option<uuid::Uuid>, Query, description = "Only tries to this endpoint"),
        ("event_uuid" = Option<uuid::Uuid>, Query, description = "Only tries of this event"),
        ("status" = Option<TryStatus>, Query, description = "`succeeded` (a 2xx answer) or `failed`"),
        ("status_code" = Option<i32>, Query, minimum = 0, maximum = 999, description = "Only tries answered with this status (0: no answer)"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Tries to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 1000, description = "Tries to return, 100 by default")),
    responses((status = 200, description = "The tries, in the list form", body = [WebhookResponseItem])))]
pub(crate) async fn list(
    state: web::Data<NotificationsState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let found = log::list(
        &state,
        &caller,
        log::ListQuery {
            organisation: q.organisation_uuid.as_deref(),
            account: q.account_uuid.as_deref(),
            endpoint: q.webhook_configuration_uuid.as_deref(),
            event: q.event_uuid.as_deref(),
            status: q.status.as_deref(),
            status_code: q.status_code.as_deref(),
            paging: q.paging,
        },
    )
    .await?;
    let items: Vec<WebhookResponseItem> = found.iter().map(|r| r.item()).collect();
    Ok(HttpResponse::Ok().json(items))
}

#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub(crate) enum TryStatus {
    Succeeded,
    Failed,
}

/// One try, with its request and answer.
#[utoipa::path(get, path = "/webhook-responses/{webhook_response_uuid}", operation_id = "getWebhookResponse", tag = "Webhooks",
    params(("webhook_response_uuid" = uuid::Uuid, Path, description = "The try")),
    responses((status = 200, description = "The try", body = WebhookResponseView),
        (status = 404, description = "No such try")))]
pub(crate) async fn get(
    state: web::Data<NotificationsState>,
    caller: Caller,
    try_uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let entry = log::show(&state, &caller, try_uuid.into_inner()).await?;
    Ok(HttpResponse::Ok().json(entry.view()))
}

/// A redelivery takes no settings; a body, when sent, must be an empty object.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({}))]
pub(crate) struct RedeliverBody {}

/// Sends the try's event to its endpoint again, now, as a new try with the same
/// `webhook-id`; the answer is the try redelivered.
#[utoipa::path(post, path = "/webhook-responses/{webhook_response_uuid}/redeliver", operation_id = "redeliverWebhookResponse", tag = "Webhooks",
    params(("webhook_response_uuid" = uuid::Uuid, Path, description = "A try of the delivery to make again")),
    request_body(content = Option<RedeliverBody>, description = "Optional; an empty object"),
    responses((status = 202, description = "A new try is due now", body = WebhookResponseItem),
        (status = 404, description = "No such try, or its endpoint is gone")))]
pub(crate) async fn redeliver(
    state: web::Data<NotificationsState>,
    caller: Caller,
    try_uuid: PathUuid,
    _body: OptionalJson<RedeliverBody>,
) -> Result<HttpResponse, ApiError> {
    let entry = log::redeliver(&state, &caller, try_uuid.into_inner()).await?;
    Ok(HttpResponse::Accepted().json(entry.item()))
}
