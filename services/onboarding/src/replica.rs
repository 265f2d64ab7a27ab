//! What onboarding keeps of other services, from their events: identity's organisations
//! and accounts (coffer-directory), to find an account's organisation.

pub use coffer_directory::{Replica, account_organisation};
