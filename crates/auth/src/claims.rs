use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Scopes Coffer understands.
pub mod scopes {
    /// Touches every tenant: operator tooling and service-to-service calls. Such a token
    /// carries no organisation list, which would not fit in a header for a large platform.
    pub const PLATFORM: &str = "coffer:platform";
    /// The default scope of an organisation's API client.
    pub const API: &str = "coffer:api";
}

/// The claims of a Coffer access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    /// The client id, as RFC 9068 puts it in `sub` for client-credentials tokens.
    pub sub: String,
    pub client_id: String,
    /// Organisations the caller may touch, with all of their accounts.
    #[serde(default)]
    pub organisations: Vec<Uuid>,
    /// Accounts the caller may touch beyond those of `organisations`.
    #[serde(default)]
    pub accounts: Vec<Uuid>,
    /// The partner a partner's client acts for. Its token lists no organisations: a
    /// partner may serve thousands, and the list would outgrow a header. Each service
    /// reads the organisations from its copy of the partner's enabled integrations
    /// ([`crate::PartnerOrganisations`]) when the token is presented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<Uuid>,
    /// Space-separated, as in RFC 6749.
    #[serde(default)]
    pub scope: String,
    pub iat: i64,
    /// Not before: RFC 7519 section 4.1.5. Identity does not set it (a token is valid from
    /// `iat`), but a token that carries it is held to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    pub exp: i64,
}

impl Claims {
    pub fn has_scope(&self, wanted: &str) -> bool {
        self.scope.split(' ').any(|s| s == wanted)
    }
}
