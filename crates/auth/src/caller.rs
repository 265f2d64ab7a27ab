use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};
use coffer_error::ApiError;
use uuid::Uuid;

use crate::{Claims, PartnerOrganisations, Verifier, scopes};

/// The authenticated client of a request. Extracting it answers 401 (shape C) when the
/// bearer token is missing, malformed, forged or expired.
#[derive(Debug, Clone)]
pub struct Caller {
    claims: Claims,
}

impl Caller {
    pub fn new(claims: Claims) -> Self {
        Self { claims }
    }

    pub fn client_id(&self) -> &str {
        &self.claims.client_id
    }

    /// The partner a partner's client acts for.
    pub fn partner(&self) -> Option<Uuid> {
        self.claims.partner
    }

    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    pub fn is_platform(&self) -> bool {
        self.claims.has_scope(scopes::PLATFORM)
    }

    /// The organisations this caller is limited to; `None` for a platform caller, who is
    /// limited to none.
    pub fn organisation_filter(&self) -> Option<&[Uuid]> {
        (!self.is_platform()).then_some(self.claims.organisations.as_slice())
    }

    /// Accounts granted one by one, beyond whole organisations.
    pub fn account_grants(&self) -> &[Uuid] {
        &self.claims.accounts
    }

    pub fn can_access_organisation(&self, organisation: Uuid) -> bool {
        self.is_platform() || self.claims.organisations.contains(&organisation)
    }

    pub fn can_access_account(&self, account: Uuid, organisation: Uuid) -> bool {
        self.can_access_organisation(organisation) || self.claims.accounts.contains(&account)
    }

    /// The organisations a list may show: the one `asked` for (403 unless the caller may
    /// see it), else every one of the caller's; `None` for a platform caller asking for none.
    pub fn organisations_listed(
        &self,
        asked: Option<Uuid>,
    ) -> Result<Option<Vec<String>>, ApiError> {
        match asked {
            Some(organisation) => {
                self.require_organisation(organisation)?;
                Ok(Some(vec![organisation.to_string()]))
            }
            None => Ok(self
                .organisation_filter()
                .map(|ids| ids.iter().map(ToString::to_string).collect())),
        }
    }

    /// The one organisation the caller reaches, when it reaches exactly one: where a
    /// request may leave its organisation out.
    pub fn sole_organisation(&self) -> Option<Uuid> {
        match self.organisation_filter() {
            Some([one]) => Some(*one),
            _ => None,
        }
    }

    /// The organisation a request that leaves `organisation_uuid` out is about: the
    /// caller's sole one. A caller reaching several (a partner, the platform) must name it,
    /// as SPEC.md has it: 400 on `organisation_uuid`.
    pub fn sole_organisation_or_named(&self) -> Result<Uuid, coffer_model::validation::FieldError> {
        self.sole_organisation().ok_or_else(|| {
            coffer_model::validation::FieldError::new(
                coffer_model::validation::codes::NOT_NULL,
                "organisation_uuid",
                "is required unless the token reaches exactly one organisation",
            )
        })
    }

    /// 403 unless the caller may touch `organisation`.
    pub fn require_organisation(&self, organisation: Uuid) -> Result<(), ApiError> {
        if self.can_access_organisation(organisation) {
            Ok(())
        } else {
            Err(ApiError::forbidden())
        }
    }

    /// 403 unless the caller may touch `account` (directly or through its organisation).
    pub fn require_account(&self, account: Uuid, organisation: Uuid) -> Result<(), ApiError> {
        if self.can_access_account(account, organisation) {
            Ok(())
        } else {
            Err(ApiError::forbidden())
        }
    }
}

fn bearer(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let token = bearer(req);
        let verifier = req.app_data::<web::Data<Verifier>>().cloned();
        let partners = req
            .app_data::<web::Data<dyn PartnerOrganisations>>()
            .cloned();
        Box::pin(async move {
            let Some(verifier) = verifier else {
                return Err(ApiError::internal("no token verifier is registered"));
            };
            let token = token.ok_or_else(ApiError::unauthorized)?;
            let mut claims = match verifier.verify(&token).await {
                Ok(claims) => claims,
                Err(reason) => {
                    tracing::debug!(%reason, "rejected access token");
                    return Err(ApiError::unauthorized());
                }
            };
            // A partner reaches the organisations of its enabled integrations as they are
            // now, whatever its token was minted with.
            if let Some(partner) = claims.partner {
                claims.organisations = match partners {
                    Some(p) => p.organisations(partner).await.map_err(|e| {
                        tracing::warn!(error = %e, "could not read a partner's integrations");
                        ApiError::unavailable("partner access cannot be checked just now")
                    })?,
                    None => Vec::new(),
                };
                claims.accounts = Vec::new();
            }
            Ok(Caller { claims })
        })
    }
}
