//! Which signing keys sign and which are published.
//!
//! The newest key that is not retired signs. A retired key stays in the JWKS until every
//! token it could have signed has expired (retirement + token lifetime), so rotation never
//! cuts off a token in flight. How a key is kept in its row is sealing.rs.

pub mod sealing;

/// A signing key as it is kept (store.rs maps its table's rows to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    pub kid: String,
    /// PKCS#8 DER sealed by coffer-secrets (`v1.<master kid>.<...>`); rows from before
    /// sealing hold the DER in plaintext base64 until the next start seals them. The
    /// column keeps its name so that code before sealing still reads it during a rollout.
    pub private_key_pkcs8: String,
    pub created: i64,
    pub retired_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub kid: String,
    pub created: i64,
    pub retired_at: Option<i64>,
}

pub fn active(keys: &[KeyRecord]) -> Option<&KeyRecord> {
    keys.iter()
        .filter(|k| k.retired_at.is_none())
        .max_by_key(|k| (k.created, k.kid.clone()))
}

pub fn published(keys: &[KeyRecord], now: i64, token_lifetime: i64) -> Vec<&KeyRecord> {
    keys.iter()
        .filter(|k| {
            k.retired_at
                .is_none_or(|retired| retired + token_lifetime > now)
        })
        .collect()
}

/// What the policy needs of stored keys.
pub fn records(rows: &[KeyRow]) -> Vec<KeyRecord> {
    rows.iter()
        .map(|r| KeyRecord {
            kid: r.kid.clone(),
            created: r.created,
            retired_at: r.retired_at,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kid: &str, created: i64, retired_at: Option<i64>) -> KeyRecord {
        KeyRecord {
            kid: kid.into(),
            created,
            retired_at,
        }
    }

    #[test]
    fn newest_unretired_key_signs() {
        let keys = [key("a", 1, Some(5)), key("b", 4, None), key("c", 3, None)];
        assert_eq!(active(&keys).map(|k| k.kid.as_str()), Some("b"));
    }

    #[test]
    fn retired_key_published_until_its_tokens_expire() {
        let keys = [key("old", 1, Some(100)), key("new", 100, None)];
        assert_eq!(published(&keys, 3699, 3600).len(), 2);
        let after = published(&keys, 3700, 3600);
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].kid, "new");
    }
}
