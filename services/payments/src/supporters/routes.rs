use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::body::parse_value;
use coffer_http::idempotency::{self, IdempotencyKey};
use coffer_http::openapi::RouteTable;
use coffer_http::{ApiError, Json, PathUuid, RequestTrace, Shape, route};
use coffer_model::ids::parse_uuid;
use coffer_model::paging::{PagingLimits, PagingQuery};
use coffer_model::validation::FieldError;
use serde::Deserialize;

use coffer_search::{Source, rendered};

use super::commands;
use super::search::SUPPORTERS;
use super::store::{self, Sort};
use crate::command_kit::Asker;
use crate::shared::supporter::{Supporter, SupporterInput, sortable};
use crate::shared::supporter_store as recorded;
use crate::state::PaymentsState;

const LIMITS: PagingLimits = PagingLimits::new(100, 1000);

pub(crate) fn routes(t: &mut RouteTable) {
    // Shape A: SPEC.md shows it for Update Supporter; the other supporter operations
    // answer in the same shape so a client parses one form.
    t.shaped(Shape::A, |t| {
        route!(t, list);
        route!(t, create);
        route!(t, get);
        route!(t, update);
    });
    route!(t, search);
}

/// Supporters by the payment search's language (`$match`, `$term`, sorting, paging, aggregations).
#[utoipa::path(post, path = "/search/supporters", operation_id = "searchSupporters", tag = "Supporters",
    request_body(content = coffer_search::SearchRequest, example = json!({"query": {"$term": {"email": "ada@example.org"}}, "size": 10})),
    responses((status = 200, description = "The matching objects, a page of them, and the aggregations", body = coffer_search::Found),
        (status = 429, description = "The organisation runs as many searches as it may at once and as many wait for a turn, or this one waited its whole time budget for a turn; see Retry-After")))]
pub(crate) async fn search(
    state: web::Data<PaymentsState>,
    caller: Caller,
    body: coffer_http::JsonEvenAsForm<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let found = coffer_search::search(
        &state.store,
        &SUPPORTERS,
        body.0,
        caller.organisation_filter(),
        |_| Source::rows(&SUPPORTERS),
        |db, uuid| rendered(recorded::find(db, uuid)?),
    )
    .await?;
    Ok(HttpResponse::Ok().json(found))
}

fn uuid(property: &str, raw: &str) -> Result<String, ApiError> {
    parse_uuid(property, raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

/// Records a supporter.
#[utoipa::path(post, path = "/supporters", operation_id = "createSupporter", tag = "Supporters",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = crate::shared::supporter::SupporterInput, example = json!({"organisation_uuid": "5a0e9d0c-6f0b-4f0c-9c55-0b9f1d8e3a21", "first_name": "Ada", "last_name": "Muster", "email": "ada@example.org"})),
    responses((status = 201, description = "The supporter", body = Supporter),
        (status = 404, description = "No such organisation"),
        (status = 409, description = "The Idempotency-Key was used with another body")))]
pub(crate) async fn create(
    state: web::Data<PaymentsState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let hash = idempotency::request_hash(&req, &body.0);
    let input: SupporterInput = parse_value(body.0)?;
    let organisation = match &input.organisation_uuid {
        None => {
            return Err(ApiError::validation(vec![FieldError::not_null(
                "organisation_uuid",
            )]));
        }
        Some(raw) => uuid("organisation_uuid", raw)?,
    };
    caller.require_organisation(organisation.parse().map_err(ApiError::internal)?)?;
    let mut supporter = Supporter {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: organisation.clone(),
        created: state.clock.unix(),
        service_parameters: serde_json::json!({}),
        ..Supporter::default()
    };
    let this_year = state.clock.now().year();
    supporter
        .apply(input, this_year)
        .map_err(ApiError::validation)?;

    let asker = Asker {
        client_id: caller.client_id().to_owned(),
        key,
    };
    Ok(commands::create(&state, asker, hash, trace.0, organisation, supporter).await?)
}

async fn load(
    state: &PaymentsState,
    caller: &Caller,
    uuid: PathUuid,
) -> Result<Supporter, ApiError> {
    let id = uuid.to_string();
    let supporter = state
        .store
        .query(move |db| recorded::find(db, &id))
        .await?
        .ok_or_else(|| ApiError::not_found("Supporter"))?;
    caller.require_organisation(
        supporter
            .organisation_uuid
            .parse()
            .map_err(ApiError::internal)?,
    )?;
    Ok(supporter)
}

/// One supporter.
#[utoipa::path(get, path = "/supporters/{supporter_uuid}", operation_id = "getSupporter", tag = "Supporters",
    params(("supporter_uuid" = uuid::Uuid, Path, description = "The supporter")),
    responses((status = 200, description = "The supporter", body = Supporter),
        (status = 404, description = "No such supporter")))]
pub(crate) async fn get(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(load(&state, &caller, uuid).await?))
}

/// Changes a supporter: a field left out is kept, one sent as null is cleared.
#[utoipa::path(patch, path = "/supporters/{supporter_uuid}", operation_id = "updateSupporter", tag = "Supporters",
    params(("supporter_uuid" = uuid::Uuid, Path, description = "The supporter")),
    request_body(content = crate::shared::supporter::SupporterChange),
    responses((status = 200, description = "The supporter", body = Supporter),
        (status = 404, description = "No such supporter")))]
pub(crate) async fn update(
    state: web::Data<PaymentsState>,
    caller: Caller,
    uuid: PathUuid,
    trace: RequestTrace,
    body: Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    let input: SupporterInput = parse_value(body.0)?;
    if input.organisation_uuid.is_some() {
        return Err(ApiError::validation(vec![FieldError::not_valid(
            "organisation_uuid",
            "a supporter cannot move to another organisation",
        )]));
    }
    let mut supporter = load(&state, &caller, uuid).await?;
    let this_year = state.clock.now().year();
    supporter
        .apply(input, this_year)
        .map_err(ApiError::validation)?;
    let body = commands::update(&state, trace.0, supporter).await?;
    Ok(HttpResponse::Ok().json(body))
}

/// The order of a list.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub(crate) enum ListOrder {
    Asc,
    Desc,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
    sort_by: Option<String>,
    sort_order: Option<String>,
    #[serde(flatten)]
    paging: PagingQuery,
}

/// The caller's supporters, a page at a time.
#[utoipa::path(get, path = "/supporters", operation_id = "listSupporters", tag = "Supporters",
    params(("organisation_uuid" = Option<uuid::Uuid>, Query, description = "Only this organisation's"),
        ("sort_by" = Option<crate::shared::supporter::SupporterSort>, Query, description = "A supporter field; `created` by default"),
        ("sort_order" = Option<ListOrder>, Query, description = "`asc` (default) or `desc`"),
        ("from" = Option<i64>, Query, minimum = 0, maximum = 4294967295_i64, description = "Supporters to skip"),
        ("size" = Option<i64>, Query, minimum = 0, maximum = 1000, description = "Supporters to return, 100 by default")),
    responses((status = 200, description = "The page", body = [Supporter])))]
pub(crate) async fn list(
    state: web::Data<PaymentsState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let paging = query.paging.resolve(LIMITS).map_err(ApiError::validation)?;
    let mut errors = Vec::new();
    let field = query.sort_by.unwrap_or_else(|| "created".into());
    if !sortable(&field) {
        errors.push(FieldError::not_valid(
            "sort_by",
            format!("cannot sort by {field:?}"),
        ));
    }
    let descending = match query.sort_order.as_deref() {
        None | Some("asc") => false,
        Some("desc") => true,
        Some(_) => {
            errors.push(FieldError::invalid_choice(
                "sort_order",
                "must be asc or desc",
            ));
            false
        }
    };
    let organisation = match query.organisation_uuid.as_deref() {
        Some(raw) => match parse_uuid("organisation_uuid", raw) {
            Ok(u) => Some(u),
            Err(e) => {
                errors.push(e);
                None
            }
        },
        None => None,
    };
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    if let Some(o) = organisation {
        caller.require_organisation(o)?;
    }
    let visible: Option<Vec<String>> = caller
        .organisation_filter()
        .map(|ids| ids.iter().map(ToString::to_string).collect());
    let one = organisation.map(|o| o.to_string());
    let sort = Sort { field, descending };
    let rows = state
        .store
        .query(move |db| {
            store::list(
                db,
                visible.as_deref(),
                one.as_deref(),
                &sort,
                paging.offset(),
                paging.limit(),
            )
        })
        .await?;
    Ok(HttpResponse::Ok().json(rows))
}
