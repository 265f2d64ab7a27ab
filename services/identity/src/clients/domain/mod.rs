//! What a new client may touch, and how its secret is made and checked (secret.rs).

use coffer_auth::scopes;
use uuid::Uuid;

pub mod secret;

/// Which organisations a new client may touch.
#[derive(Debug, Clone)]
pub enum ClientAccess {
    Organisations(Vec<Uuid>),
    /// Every tenant: operator tooling and service-to-service calls.
    Platform,
    /// A partner's client: its tokens name the partner, and reach the organisations it has
    /// an enabled integration with (docs/partners.md).
    Partner,
}

impl ClientAccess {
    /// The scope its tokens carry.
    pub fn scope(&self) -> String {
        match self {
            ClientAccess::Platform => format!("{} {}", scopes::API, scopes::PLATFORM),
            ClientAccess::Organisations(_) | ClientAccess::Partner => scopes::API.to_owned(),
        }
    }

    /// The organisations it is granted, as stored; none for a platform client, whose
    /// scope covers every tenant.
    pub fn organisations(&self) -> &[Uuid] {
        match self {
            ClientAccess::Platform | ClientAccess::Partner => &[],
            ClientAccess::Organisations(list) => list,
        }
    }
}
