//! Coffer's access tokens: RS256 JWTs signed by identity and verified locally by every
//! service against identity's published keys.

mod caller;
mod claims;
mod jwks;
mod keys;
mod partners;
mod signing;
mod verifier;

pub use caller::Caller;
pub use claims::{Claims, scopes};
pub use jwks::{Jwk, Jwks};
pub use keys::{KeySource, RemoteJwks, SharedKeys};
pub use partners::PartnerOrganisations;
pub use signing::{SigningError, SigningKey};
pub use verifier::{AuthError, CLOCK_SKEW_LEEWAY_SECS, Verifier};
