//! Processes over HTTP (API.md, "Partner onboarding"). SPEC.md lists 201 for every
//! operation of the process, reads included, and Coffer answers as it lists.

use actix_web::{HttpRequest, HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::idempotency::{IdempotencyKey, Once};
use coffer_http::{ApiError, ClientAddress, Json, OptionalJson, PathUuid};
use serde::Deserialize;
use serde_json::Value;

use super::commands;
use super::views::ProcessRecord;
use crate::state::OnboardingState;

/// Longest token looked up: tokens are 43 characters.
const MAX_TOKEN_CHARS: usize = 100;

fn token(raw: &str) -> Result<&str, ApiError> {
    if raw.is_empty() || raw.len() > MAX_TOKEN_CHARS {
        return Err(ApiError::not_found("onboarding process"));
    }
    Ok(raw)
}

/// Starts an onboarding process for an organisation the partner brings.
#[utoipa::path(post, path = "/partner-onboarding-processes", operation_id = "createPartnerOnboardingProcess",
    tag = "Partner onboarding",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,255}$", description = "The same key and body within 24 h answer as the first request did; the same key with another body is 409")),
    request_body(content = Object, description = "SPEC.md's create request",
        example = json!({"external_id": "crm-42", "onboarding_configuration_uuid": "6f1c0e8e-2d6b-4c55-9a39-2b8f1e1f0a77",
            "user": {"email": "ann@example.org", "first_name": "Ann", "last_name": "Example", "locale": "de"},
            "organisation": {"name": "Alpine Aid", "merchant_category_code": "8398",
                "main_address": {"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"},
                "billing_address": {"address_line1": "Bahnhofstrasse 1", "address_line2": "", "postal_code": "8001", "city": "Zürich", "country": "CH"},
                "billing_information": {"iban": "CH93 0076 2011 6238 5295 7", "bank_name": "Alpine Bank", "account_holder": "Alpine Aid"}}})),
    responses((status = 201, description = "The process record", body = ProcessRecord),
        (status = 400, description = "A fault in the request, every one named"),
        (status = 401, description = "No valid token"),
        (status = 403, description = "Not a partner's client"),
        (status = 404, description = "No such configuration of this partner"),
        (status = 409, description = "The Idempotency-Key was used with another body, or its first request is still in progress")))]
pub(crate) async fn create(
    state: web::Data<OnboardingState>,
    caller: Caller,
    req: HttpRequest,
    key: IdempotencyKey,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let once = Once::of(&caller, key, &req, &body.0);
    Ok(commands::create(&state, &caller, once, body.0).await?)
}

/// The partner's process, by its uuid.
#[utoipa::path(get, path = "/partner-onboarding-processes/{uuid}", operation_id = "getPartnerOnboardingProcess",
    tag = "Partner onboarding", params(("uuid" = String, Path)),
    responses((status = 201, description = "The process record", body = ProcessRecord),
        (status = 400, description = "A malformed uuid"), (status = 401, description = "No valid token"),
        (status = 404, description = "No process of this partner")))]
pub(crate) async fn get(
    state: web::Data<OnboardingState>,
    caller: Caller,
    process: PathUuid,
) -> Result<HttpResponse, ApiError> {
    let record = commands::by_uuid(&state, &caller, process.into_inner()).await?;
    Ok(HttpResponse::Created().json(record))
}

/// A process by its token, for the person it was made for: no bearer token. An expired
/// one shows `expired: true`.
#[utoipa::path(get, path = "/partner-onboarding-processes/tokens/{token}", operation_id = "getPartnerOnboardingProcessByToken",
    tag = "Partner onboarding", params(("token" = String, Path)), security(()),
    responses((status = 201, description = "The process record", body = ProcessRecord),
        (status = 404, description = "No process has this token")))]
pub(crate) async fn by_token(
    state: web::Data<OnboardingState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let record = commands::by_token(&state, token(&path)?).await?;
    Ok(HttpResponse::Created().json(record))
}

/// Execute's optional body (beyond SPEC.md): the new user's password.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecuteBody {
    user: Option<ExecuteUser>,
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecuteUser {
    /// At least 10 characters; without one the user cannot sign in until an operator
    /// sets one.
    password: Option<String>,
}

/// Makes the organisation with its addresses and billing information, one account per
/// configured label, and the user, and gives the partner access to the organisation.
#[utoipa::path(post, path = "/partner-onboarding-processes/tokens/{token}/execute",
    operation_id = "executePartnerOnboardingProcess", tag = "Partner onboarding",
    params(("token" = String, Path)), security(()),
    request_body(content = Option<ExecuteBody>, example = json!({"user": {"password": "correct horse battery"}})),
    responses((status = 201, description = "The process record, completed, with its results", body = ProcessRecord),
        (status = 400, description = "A fault in the body or in the process's data, every one named"),
        (status = 404, description = "No process has this token"),
        (status = 409, description = "Completed already, expired, or the user's e-mail address is taken")))]
pub(crate) async fn execute(
    state: web::Data<OnboardingState>,
    path: web::Path<String>,
    body: OptionalJson<ExecuteBody>,
) -> Result<HttpResponse, ApiError> {
    let password = body.0.user.and_then(|u| u.password);
    let record = commands::execute(&state, token(&path)?, password).await?;
    Ok(HttpResponse::Created().json(record))
}

/// Connects the organisation of an existing user to the partner; the user gives their
/// e-mail address and password as HTTP Basic credentials.
#[utoipa::path(post, path = "/partner-onboarding-processes/tokens/{token}/connect",
    operation_id = "connectPartnerOnboardingProcess", tag = "Partner onboarding",
    params(("token" = String, Path)), security(("basic" = [])),
    responses((status = 201, description = "The process record, completed", body = ProcessRecord),
        (status = 401, description = "No credentials, or the e-mail address and password do not match"),
        (status = 404, description = "No process has this token"),
        (status = 409, description = "Completed already, or expired"),
        (status = 429, description = "Too many failures from this network; see Retry-After")))]
pub(crate) async fn connect(
    state: web::Data<OnboardingState>,
    req: HttpRequest,
    from: ClientAddress,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let record = commands::connect(
        &state,
        token(&path)?,
        coffer_http::basic_credentials(&req),
        from.ip(),
    )
    .await?;
    Ok(HttpResponse::Created().json(record))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CaptchaQuery {
    /// A captcha token (reCAPTCHA; `test-ok` while `onboarding.captcha = test`).
    recaptcha_token: Option<String>,
}

/// Whether a user has this e-mail address: 200 `{"exists": true}`, 404 when none has; an
/// address that is not one is 400 `not_valid`.
#[utoipa::path(get, path = "/partner-onboarding-processes/user-emails/{email}",
    operation_id = "checkOnboardingUserEmail", tag = "Partner onboarding",
    params(("email" = String, Path), CaptchaQuery), security(()),
    responses((status = 200, description = "A user has it"),
        (status = 400, description = "No recaptcha_token, or the address is not an e-mail address"),
        (status = 403, description = "The captcha failed"),
        (status = 404, description = "No user has it"),
        (status = 429, description = "Too many checks from this network; see Retry-After")))]
pub(crate) async fn email_existence(
    state: web::Data<OnboardingState>,
    from: ClientAddress,
    path: web::Path<String>,
    query: web::Query<CaptchaQuery>,
) -> Result<HttpResponse, ApiError> {
    let exists = commands::email_exists(
        &state,
        path.into_inner(),
        query.into_inner().recaptcha_token,
        from.ip(),
        from.network(),
    )
    .await?;
    if exists {
        Ok(HttpResponse::Ok().json(serde_json::json!({"exists": true})))
    } else {
        Err(ApiError::not_found("user"))
    }
}
