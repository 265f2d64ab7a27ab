//! Partners: CRM vendors and agencies that bring organisations to Coffer and sign their
//! users in through Coffer (docs/partners.md). A partner is one API client with a name and
//! the redirect URIs its users may be sent back to.

pub mod commands;
pub mod domain;
pub(crate) mod store;

pub use commands::NewPartner;
pub use domain::PartnerInput;
