//! Recently read organisations, for the read that dominates identity's traffic: a client
//! fetching its own organisation. Entries live briefly (see `read_cache_ttl`).

use std::time::Duration;

use coffer_store::TtlCache;

use crate::directory::{AccountRow, OrganisationRow};

pub(crate) struct DirectoryCache {
    pub organisations: TtlCache<String, (OrganisationRow, Vec<AccountRow>)>,
}

impl DirectoryCache {
    pub fn new(ttl: Duration) -> Self {
        Self {
            organisations: TtlCache::new(10_000, ttl),
        }
    }
}
