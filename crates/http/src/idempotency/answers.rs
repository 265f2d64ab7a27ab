//! How a key's first answer is kept in the idempotency table (as it is, or sealed when it
//! carries a secret) and how it is read back and given again to a repeat of the request.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_error::ApiError;
use coffer_secrets::{Secrets, is_sealed};
use coffer_store::idempotency::StoredResponse;

/// How a key's first response is kept: as it is, or sealed under the service's master keys
/// when it carries a secret the service keeps sealed elsewhere (a webhook's signing key and
/// password, an onboarding process's token), so that the idempotency table is no way round
/// the sealing of the object's own row.
#[derive(Clone)]
pub(super) enum Keeping {
    Plain,
    /// Cheap to clone: the keys are shared.
    Sealed(Secrets),
}

/// What the `request_hash` column holds for an answer kept sealed: the request's digest is
/// sealed with the answer instead, since the body of such a request carries a secret too (a
/// webhook's password, an SFTP password), and a plain digest of it could be matched by
/// guessing the secret. Sealed with the answer, it is sealed again with it after a rotation.
const DIGEST_SEALED: &str = "sealed";

impl Keeping {
    /// The stored forms of a request's digest and its answer; the context binds them to the
    /// client and key they answer.
    pub(super) fn store(
        &self,
        (client_id, key): (&str, &str),
        digest: &str,
        body: &serde_json::Value,
    ) -> Result<(String, String), ApiError> {
        match self {
            Keeping::Plain => Ok((digest.to_owned(), body.to_string())),
            Keeping::Sealed(secrets) => {
                let kept = serde_json::json!({ SEALED_DIGEST: digest, SEALED_ANSWER: body });
                let sealed = secrets
                    .seal(&context(client_id, key), kept.to_string().as_bytes())
                    .map_err(ApiError::internal)?;
                Ok((DIGEST_SEALED.to_owned(), sealed))
            }
        }
    }

    /// `stored` read back: the request's digest and the answer. A sealed answer is opened;
    /// a plain one (stored before its operation sealed answers) is read as it is.
    fn read(&self, stored: &StoredResponse) -> Result<(String, serde_json::Value), ApiError> {
        match self {
            Keeping::Sealed(secrets) if is_sealed(&stored.response) => {
                let context = context(&stored.client_id, &stored.idempotency_key);
                // Sealed under a master key retired since (rotations keep the old key a
                // while, not necessarily the 24 hours a key lives): the first answer is
                // gone, and the client is told to ask again under a new key.
                let opened = secrets.open(&context, &stored.response).map_err(|e| {
                    tracing::warn!(error = %e, "a stored Idempotency-Key answer no longer opens");
                    ApiError::conflict(
                        "The first answer under this Idempotency-Key can no longer be read; \
                         send the request under a new key",
                    )
                })?;
                let mut kept: serde_json::Value =
                    serde_json::from_slice(&opened).map_err(ApiError::internal)?;
                match kept.get(SEALED_DIGEST).and_then(serde_json::Value::as_str) {
                    Some(digest) => Ok((digest.to_owned(), kept[SEALED_ANSWER].take())),
                    // Sealed before the digest was sealed with it: the column has it.
                    None => Ok((stored.request_hash.clone(), kept)),
                }
            }
            _ => Ok((
                stored.request_hash.clone(),
                serde_json::from_str(&stored.response).map_err(ApiError::internal)?,
            )),
        }
    }
}

/// The names a sealed answer keeps the request's digest and the answer under.
const SEALED_DIGEST: &str = "coffer.request_digest";
const SEALED_ANSWER: &str = "coffer.answer";

pub(super) fn context(client_id: &str, key: &str) -> String {
    format!("idempotency.response:{client_id}:{key}")
}

pub(super) fn replay(
    stored: &StoredResponse,
    hash: &str,
    keeping: &Keeping,
) -> Result<HttpResponse, ApiError> {
    let (digest, body) = keeping.read(stored)?;
    if digest != hash {
        return Err(ApiError::conflict(
            "This Idempotency-Key was used with a different request",
        ));
    }
    let status =
        StatusCode::from_u16(u16::try_from(stored.status).unwrap_or(500)).unwrap_or(StatusCode::OK);
    Ok(HttpResponse::build(status)
        .insert_header(("Idempotent-Replayed", "true"))
        .json(body))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn stored(response: String) -> StoredResponse {
        StoredResponse {
            client_id: "client".into(),
            idempotency_key: "key".into(),
            request_hash: "hash".into(),
            status: 201,
            response,
            created_ms: 0,
        }
    }

    #[test]
    fn a_sealed_answer_opens_for_its_key_only_and_a_retired_key_is_a_conflict() {
        let body = serde_json::json!({"uuid": "u", "hmac_key": "whsec_secret"});
        let keeping = Keeping::Sealed(Secrets::ephemeral().unwrap());
        let (digest, sealed) = keeping
            .store(("client", "key"), "the-digest", &body)
            .unwrap();
        // The request's digest is sealed with the answer: the column holds nothing of it.
        assert_eq!(digest, DIGEST_SEALED);
        assert!(!sealed.contains("whsec_secret") && !sealed.contains("the-digest"));
        let read = keeping.read(&stored(sealed.clone())).unwrap();
        assert_eq!(read, ("the-digest".to_owned(), body.clone()));
        // Under other keys (a rotation that dropped the old one), it does not open: the
        // client is told to use a new key, not given a 500.
        let retired = Keeping::Sealed(Secrets::ephemeral().unwrap());
        let refused = retired.read(&stored(sealed)).unwrap_err();
        assert_eq!(refused.status().as_u16(), 409);
        // An answer stored before its operation sealed them still reads, with the column's
        // digest.
        let plain = keeping.read(&stored(body.to_string())).unwrap();
        assert_eq!(plain, ("hash".to_owned(), body));
    }
}
