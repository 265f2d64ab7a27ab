//! Where a service finds the organisations a partner's token reaches: its own copy of the
//! partner's enabled integrations (crates/partners), registered as app data. A service
//! without one lets a partner's token reach no organisation.

use std::future::Future;
use std::pin::Pin;

use uuid::Uuid;

/// The organisations a partner reaches now.
pub trait PartnerOrganisations: Send + Sync {
    fn organisations(
        &self,
        partner: Uuid,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<Uuid>, String>> + Send + '_>>;
}
