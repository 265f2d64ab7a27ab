//! Event subscriptions over HTTP: read the request, call one command, render.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{IdempotencyKey, Once};
use coffer_http::{ApiError, Json, PathUuid};
use coffer_model::paging::PagingQuery;
use serde::Deserialize;
use serde_json::Value;

use super::commands::{self, ListQuery};
use super::domain::EventSubscriptionView;
use crate::state::NotificationsState;

#[derive(Debug, Deserialize)]
pub(crate) struct ListParams {
    organisation_uuid: Option<String>,
    account_uuid: Option<String>,
    webhook_configuration_uuid: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

/// The caller's event subscriptions, oldest first: every one, unless `size` asks for a page.
#[utoipa::path(get, path = "/event-subscriptions", operation_id = "listEventSubscriptions", tag = "Webhooks",
    params(("organisation_uuid" = Option<String>, Query, pattern = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description = "The organisation's (a uuid). Left out or empty, the token's organisation where it reaches exactly one; a token reaching several must name it (400)"),
        ("account_uuid" = Option<String>, Query, pattern = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description = "Only this account's (a uuid; sent empty, it counts as left out)"),
        ("webhook_configuration_uuid" = Option<String>, Query, pattern = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description = "Only those of this webhook endpoint (a uuid; sent empty, it counts as left out)"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Subscriptions to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 1000, description = "At most this many; every one (from `from` on) when left out")),
    responses((status = 200, description = "The subscriptions", body = [EventSubscriptionView]),
        (status = 400, description = "A filter or paging value is not valid, or the token reaches several organisations and none is named")))]
pub(crate) async fn list(
    state: web::Data<NotificationsState>,
    caller: Caller,
    query: web::Query<ListParams>,
) -> Result<HttpResponse, ApiError> {
    let q = ListQuery {
        organisation: query.organisation_uuid.as_deref(),
        account: query.account_uuid.as_deref(),
        endpoint: query.webhook_configuration_uuid.as_deref(),
        paging: &query.paging,
    };
    let found = commands::list(&state, &caller, q).await?;
    let views: Vec<EventSubscriptionView> = found.iter().map(|x| x.view()).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// Subscribes a webhook endpoint to an event.
#[utoipa::path(post, path = "/event-subscriptions", operation_id = "createEventSubscription", tag = "Webhooks",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = super::domain::request::EventSubscriptionBody),
    responses((status = 201, description = "The subscription", body = EventSubscriptionView),
        (status = 400, description = "A field is not valid, or the organisation has as many subscriptions as it may (`organisation_uuid` is named)"),
        (status = 404, description = "No such webhook endpoint or account"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    state: web::Data<NotificationsState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, &body.0).await?)
}

/// One event subscription.
#[utoipa::path(get, path = "/event-subscriptions/{event_subscription_uuid}", operation_id = "getEventSubscription", tag = "Webhooks",
    params(("event_subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    responses((status = 200, description = "The subscription", body = EventSubscriptionView),
        (status = 404, description = "No such subscription")))]
pub(crate) async fn get(
    state: web::Data<NotificationsState>,
    caller: Caller,
    subscription: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(
        commands::show(&state, &caller, subscription.into_inner())
            .await?
            .view(),
    ))
}

/// Replaces a subscription: what the body leaves out is cleared.
#[utoipa::path(put, path = "/event-subscriptions/{event_subscription_uuid}", operation_id = "replaceEventSubscription", tag = "Webhooks",
    params(("event_subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = super::domain::request::EventSubscriptionBody),
    responses((status = 200, description = "The subscription", body = EventSubscriptionView),
        (status = 404, description = "No such subscription, webhook endpoint or account")))]
pub(crate) async fn replace(
    state: web::Data<NotificationsState>,
    caller: Caller,
    subscription: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let x = commands::change(&state, &caller, subscription.into_inner(), &body.0, true).await?;
    Ok(HttpResponse::Ok().json(x.view()))
}

/// Changes a subscription; a field left out is kept.
#[utoipa::path(patch, path = "/event-subscriptions/{event_subscription_uuid}", operation_id = "updateEventSubscription", tag = "Webhooks",
    params(("event_subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    request_body(content = super::domain::request::EventSubscriptionChange),
    responses((status = 200, description = "The subscription", body = EventSubscriptionView),
        (status = 404, description = "No such subscription, webhook endpoint or account")))]
pub(crate) async fn update(
    state: web::Data<NotificationsState>,
    caller: Caller,
    subscription: PathUuid,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let x = commands::change(&state, &caller, subscription.into_inner(), &body.0, false).await?;
    Ok(HttpResponse::Ok().json(x.view()))
}

/// Removes a subscription.
#[utoipa::path(delete, path = "/event-subscriptions/{event_subscription_uuid}", operation_id = "deleteEventSubscription", tag = "Webhooks",
    params(("event_subscription_uuid" = uuid::Uuid, Path, description = "The subscription")),
    responses((status = 204, description = "Removed"),
        (status = 404, description = "No such subscription")))]
pub(crate) async fn delete(
    state: web::Data<NotificationsState>,
    caller: Caller,
    subscription: PathUuid,
) -> Result<HttpResponse, ApiError> {
    commands::delete(&state, &caller, subscription.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
