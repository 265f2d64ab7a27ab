//! The onboarding service's call into identity (distributed mode). Platform callers only:
//! it makes organisations, which no tenant may do.

use actix_web::{HttpResponse, web};
use coffer_auth::Caller;
use coffer_http::{ApiError, Json};

use super::commands;
use super::domain::{Onboarded, OnboardingRequest};
use crate::state::IdentityState;

/// Makes an onboarded organisation with its accounts and first user, or answers what an
/// earlier call with the same uuids made (200 then, 201 when made now).
#[utoipa::path(post, path = "/internal/onboardings", operation_id = "createOnboarding",
    tag = "Internal",
    request_body = OnboardingRequest,
    responses(
        (status = 201, description = "Made", body = Onboarded),
        (status = 200, description = "Made before, by a call with the same uuids", body = Onboarded),
        (status = 400, description = "A fault in the request, every one named"),
        (status = 401, description = "No valid token"),
        (status = 403, description = "Not a platform caller"),
        (status = 409, description = "The user's e-mail address is taken, or the organisation exists with another user"),
    ))]
pub(crate) async fn create(
    state: web::Data<IdentityState>,
    caller: Caller,
    body: Result<Json<OnboardingRequest>, ApiError>,
) -> Result<HttpResponse, ApiError> {
    // The caller first: a body's faults are no one else's business.
    if !caller.is_platform() {
        return Err(ApiError::forbidden());
    }
    let (done, made) = commands::onboard(&state.writes(), body?.0).await?;
    Ok(if made {
        HttpResponse::Created().json(done)
    } else {
        HttpResponse::Ok().json(done)
    })
}

/// Checks a user's e-mail address and password, slowed down on failure like the login
/// page (docs/partners.md); 401 when they do not match, 429 while the source must wait.
#[utoipa::path(post, path = "/internal/user-credentials", operation_id = "checkUserCredentials",
    tag = "Internal",
    request_body = super::domain::CredentialsCheck,
    responses(
        (status = 200, description = "The user the credentials belong to", body = super::domain::KnownUser),
        (status = 401, description = "No valid token, or the e-mail address and password do not match"),
        (status = 403, description = "Not a platform caller"),
        (status = 429, description = "Too many failures from this source; see Retry-After"),
    ))]
pub(crate) async fn check_credentials(
    state: web::Data<IdentityState>,
    caller: Caller,
    body: Result<Json<super::domain::CredentialsCheck>, ApiError>,
) -> Result<HttpResponse, ApiError> {
    if !caller.is_platform() {
        return Err(ApiError::forbidden());
    }
    let known = commands::check_credentials(&state, body?.0).await?;
    Ok(HttpResponse::Ok().json(known))
}

/// Whether a user has this e-mail address (the onboarding service's check, which guards
/// it with a captcha and a throttle of its own).
#[utoipa::path(get, path = "/internal/user-emails/{email}", operation_id = "getUserEmailExistence",
    tag = "Internal",
    params(("email" = String, Path, description = "The address, in any case")),
    responses(
        (status = 200, description = "Whether a user has it", body = super::domain::EmailExistence),
        (status = 401, description = "No valid token"),
        (status = 403, description = "Not a platform caller"),
    ))]
pub(crate) async fn email_existence(
    state: web::Data<IdentityState>,
    caller: Caller,
    email: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if !caller.is_platform() {
        return Err(ApiError::forbidden());
    }
    let exists = commands::email_exists(&state, &email).await?;
    Ok(HttpResponse::Ok().json(super::domain::EmailExistence { exists }))
}
