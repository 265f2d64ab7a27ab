//! The copies of identity's directory that payments, billing, notifications, onboarding and
//! reconciliation keep from its events. `coffer dev` seeds the demo organisation through
//! identity, and the other services learn of its accounts only when their consumers have
//! read those events; a first request naming an account before then would be told the
//! account does not exist. So `coffer dev` starts answering once every copy knows the
//! demo accounts (or after a bounded wait, with a warning naming the copies behind).

use std::time::Duration;

use coffer_store::Store;

pub struct DirectoryCopies(Vec<(&'static str, Store)>);

/// How often the copies are asked while `coffer dev` waits for them.
const POLL: Duration = Duration::from_millis(25);

impl DirectoryCopies {
    pub fn new(copies: Vec<(&'static str, Store)>) -> Self {
        Self(copies)
    }

    /// Waits until every copy holds each of `accounts`, for at most `within`. Returns the
    /// services whose copy is still missing one when the time is up (none on success).
    pub async fn wait_for(&self, accounts: &[String], within: Duration) -> Vec<&'static str> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let behind = self.behind(accounts).await;
            if behind.is_empty() || tokio::time::Instant::now() >= deadline {
                return behind;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn behind(&self, accounts: &[String]) -> Vec<&'static str> {
        let mut behind = Vec::new();
        for (service, store) in &self.0 {
            for account in accounts {
                let key = account.clone();
                let known = store
                    .query(move |db| coffer_directory::account_organisation(db, &key))
                    .await;
                // A copy that cannot be read now counts as behind: the next poll asks again.
                if !matches!(known, Ok(Some(_))) {
                    behind.push(*service);
                    break;
                }
            }
        }
        behind
    }
}
