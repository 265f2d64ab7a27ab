//! How a signing key is kept in its row: PKCS#8 DER sealed with the master keys
//! (coffer-secrets), bound to the key's id so a value copied into another row does not
//! open. Rows written before sealing existed hold base64 DER in plaintext; they still
//! read, and are sealed at the next start.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use coffer_secrets::{OpenError, SealError, Secrets};
use zeroize::Zeroizing;

use super::KeyRow;

/// A stored key value to replace, if it still holds `was`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reseal {
    pub kid: String,
    pub was: String,
    pub now: String,
}

/// Why a key's stored value did not open or seal; the keyring passes it on as it is.
#[derive(Debug, thiserror::Error)]
pub enum SealingError {
    #[error("stored signing key {kid} is not valid base64")]
    Encoding { kid: String },
    #[error("stored signing key {kid} does not open ({source}); check secrets.keys")]
    Open { kid: String, source: OpenError },
    #[error("could not seal signing key {kid}: {source}")]
    Seal { kid: String, source: SealError },
}

/// What a signing key's sealed value is bound to.
fn context(kid: &str) -> String {
    format!("identity.signing_key:{kid}")
}

pub fn is_plaintext(row: &KeyRow) -> bool {
    !coffer_secrets::is_sealed(&row.private_key_pkcs8)
}

/// The key's PKCS#8 DER.
pub fn open(row: &KeyRow, secrets: &Secrets) -> Result<Zeroizing<Vec<u8>>, SealingError> {
    if is_plaintext(row) {
        return STANDARD
            .decode(&row.private_key_pkcs8)
            .map(Zeroizing::new)
            .map_err(|_| SealingError::Encoding {
                kid: row.kid.clone(),
            });
    }
    secrets
        .open(&context(&row.kid), &row.private_key_pkcs8)
        .map_err(|source| SealingError::Open {
            kid: row.kid.clone(),
            source,
        })
}

pub fn seal(kid: &str, der: &[u8], secrets: &Secrets) -> Result<String, SealingError> {
    secrets
        .seal(&context(kid), der)
        .map_err(|source| SealingError::Seal {
            kid: kid.to_owned(),
            source,
        })
}

/// Which rows to seal again, and how: every plaintext row, and every row sealed under a
/// master key that is no longer current.
pub fn reseal_plan(rows: &[KeyRow], secrets: &Secrets) -> Result<Vec<Reseal>, SealingError> {
    rows.iter()
        .filter(|row| secrets.needs_sealing(&row.private_key_pkcs8))
        .map(|row| {
            let der = open(row, secrets)?;
            Ok(Reseal {
                kid: row.kid.clone(),
                was: row.private_key_pkcs8.clone(),
                now: seal(&row.kid, &der, secrets)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn row(kid: &str, stored: String) -> KeyRow {
        KeyRow {
            kid: kid.into(),
            private_key_pkcs8: stored,
            created: 1,
            retired_at: None,
        }
    }

    fn ring(keys: &[(&str, u8)], current: &str) -> Secrets {
        let keys = keys
            .iter()
            .map(|(kid, byte)| coffer_secrets::MasterKey::new(kid, &[*byte; 32]).unwrap())
            .collect();
        Secrets::new(keys, Some(current)).unwrap()
    }

    #[test]
    fn plaintext_rows_read_and_are_always_planned_for_sealing() {
        let secrets = ring(&[("m1", 1)], "m1");
        let legacy = row("a", STANDARD.encode(b"der bytes"));
        assert_eq!(open(&legacy, &secrets).unwrap().as_slice(), b"der bytes");
        let plan = reseal_plan(std::slice::from_ref(&legacy), &secrets).unwrap();
        assert_eq!(plan.len(), 1);
        assert!(plan[0].now.starts_with("v1.m1."));
        assert_eq!(
            open(&row("a", plan[0].now.clone()), &secrets)
                .unwrap()
                .as_slice(),
            b"der bytes"
        );
    }

    #[test]
    fn a_sealed_value_does_not_open_in_another_row() {
        let secrets = ring(&[("m1", 1)], "m1");
        let sealed = seal("a", b"der", &secrets).unwrap();
        assert!(open(&row("a", sealed.clone()), &secrets).is_ok());
        assert!(matches!(
            open(&row("b", sealed), &secrets),
            Err(SealingError::Open { .. })
        ));
    }

    #[test]
    fn a_master_key_rotation_reseals_what_the_old_key_sealed() {
        let old = ring(&[("m1", 1)], "m1");
        let rows = [row("a", seal("a", b"der", &old).unwrap())];
        assert!(reseal_plan(&rows, &old).unwrap().is_empty());
        let new = ring(&[("m1", 1), ("m2", 2)], "m2");
        let plan = reseal_plan(&rows, &new).unwrap();
        assert_eq!(plan.len(), 1);
        assert!(plan[0].now.starts_with("v1.m2."));
        assert!(
            reseal_plan(&[row("a", plan[0].now.clone())], &new)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_row_under_a_master_key_that_is_gone_stops_the_plan() {
        let old = ring(&[("m1", 1)], "m1");
        let rows = [row("a", seal("a", b"der", &old).unwrap())];
        let without = ring(&[("m2", 2)], "m2");
        let err = reseal_plan(&rows, &without).unwrap_err();
        assert!(err.to_string().contains("m1"), "{err}");
    }
}
