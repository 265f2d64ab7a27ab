//! Partner integrations over HTTP (SPEC.md, "Operations with a stated method and path").

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, PathUuid};
use coffer_model::ids::parse_uuid;
use serde::Deserialize;

use super::commands;
use super::store::{Filter, IntegrationRow};
use crate::state::OnboardingState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListQuery {
    organisation_uuid: Option<String>,
    /// The integrations of the account's organisation.
    account_uuid: Option<String>,
    /// The onboarding configuration of the process that made them.
    configuration_uuid: Option<String>,
}

fn uuid(property: &str, raw: &str) -> Result<String, ApiError> {
    parse_uuid(property, raw)
        .map(|u| u.to_string())
        .map_err(|e| ApiError::validation(vec![e]))
}

/// The partner integrations the caller may see: a partner its own, an organisation's
/// client its organisation's.
#[utoipa::path(get, path = "/partner-integrations", operation_id = "listPartnerIntegrations",
    tag = "Partner onboarding", params(ListQuery),
    responses((status = 200, description = "The integrations, oldest first (at most 500)", body = [IntegrationRow]),
        (status = 400, description = "A malformed uuid"), (status = 401, description = "No valid token")))]
pub(crate) async fn list(
    state: web::Data<OnboardingState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let mut organisations = Vec::new();
    if let Some(o) = q.organisation_uuid.as_deref() {
        organisations.push(uuid("organisation_uuid", o)?);
    }
    if let Some(a) = q.account_uuid.as_deref() {
        let account = uuid("account_uuid", a)?;
        let key = account.clone();
        match state
            .store
            .query(move |c| crate::replica::account_organisation(c, &key))
            .await?
        {
            Some(o) => organisations.push(o),
            None => return Ok(HttpResponse::Ok().json(Vec::<IntegrationRow>::new())),
        }
    }
    let filter = Filter {
        partner: None,
        organisations: (!organisations.is_empty()).then_some(organisations),
        configuration: q
            .configuration_uuid
            .as_deref()
            .map(|c| uuid("configuration_uuid", c))
            .transpose()?,
    };
    let rows = commands::list(&state, &caller, filter).await?;
    Ok(HttpResponse::Ok().json(rows))
}

/// Ends the partner's access to the organisation: tokens presented after the services
/// hear of it no longer reach it.
#[utoipa::path(post, path = "/partner-integrations/{partner_integration_uuid}/disable",
    operation_id = "disablePartnerIntegration", tag = "Partner onboarding",
    params(("partner_integration_uuid" = String, Path)),
    responses((status = 200, description = "The integration, disabled", body = IntegrationRow),
        (status = 400, description = "A malformed uuid"), (status = 401, description = "No valid token"),
        (status = 404, description = "No integration the caller may touch")))]
pub(crate) async fn disable(
    state: web::Data<OnboardingState>,
    caller: Caller,
    integration: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let row = commands::disable(&state, &caller, integration.into_inner()).await?;
    Ok(HttpResponse::Ok().json(row))
}
