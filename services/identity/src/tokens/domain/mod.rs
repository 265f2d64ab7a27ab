//! What an access token says about its client (when failed authentications are
//! throttled is crate::throttles::failure_window).

use coffer_auth::{Claims, scopes};
use uuid::Uuid;

/// Everything a client may touch, as loaded for a token grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientGrants {
    pub client_id: String,
    pub scope: String,
    pub organisations: Vec<Uuid>,
    pub accounts: Vec<Uuid>,
    /// The partner the client acts for, if it is a partner's.
    pub partner: Option<Uuid>,
}

pub fn access_claims(grants: &ClientGrants, issuer: &str, now: i64, lifetime_secs: i64) -> Claims {
    let platform = grants.scope.split(' ').any(|s| s == scopes::PLATFORM);
    Claims {
        iss: issuer.to_owned(),
        sub: grants.client_id.clone(),
        client_id: grants.client_id.clone(),
        // A platform token touches every tenant; lists would only make it heavier.
        organisations: if platform {
            Vec::new()
        } else {
            grants.organisations.clone()
        },
        accounts: if platform {
            Vec::new()
        } else {
            grants.accounts.clone()
        },
        partner: grants.partner,
        scope: grants.scope.clone(),
        iat: now,
        nbf: None,
        exp: now + lifetime_secs,
    }
}
