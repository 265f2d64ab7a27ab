//! The start-up pass that seals again, under the current master key, the answers kept
//! sealed under an older one, so a rotation can retire the old key.

use coffer_secrets::{ResealError, SEALED_PREFIX, Secrets};
use coffer_store::idempotency;
use coffer_store::resealing::{
    self, Batch, Fate, Found, PassError, Resealed, SealedTable, Unopened,
};
use coffer_store::{Db, Store};
use diesel::result::Error as DieselError;

use super::answers::context;

/// Seals again the answers a service stored sealed ([`run_sealed`](super::run_sealed)) under
/// a master key that is no longer current; every service that stores sealed answers runs it
/// at start.
pub async fn reseal_answers(store: &Store, secrets: &Secrets) -> Result<Resealed, PassError> {
    resealing::reseal::<SealedAnswers>(store, secrets).await
}

/// The stored answers, as the start-up pass goes through them.
struct SealedAnswers;

/// Whose answer a stored one is: a client's, under one of its keys.
#[derive(Debug, Clone, Default)]
struct AnswerOf {
    client_id: String,
    key: String,
}

impl std::fmt::Display for AnswerOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "of client {} under key {}", self.client_id, self.key)
    }
}

impl SealedTable for SealedAnswers {
    const TABLE: &'static str = "idempotency_keys";
    type Key = AnswerOf;
    type Values = String;

    fn stale(db: &mut Db<'_>, batch: &Batch<'_, AnswerOf>) -> Result<Found<Self>, DieselError> {
        let sealed = resealing::like_prefix(SEALED_PREFIX);
        let after = (batch.after.client_id.as_str(), batch.after.key.as_str());
        let found = idempotency::sealed_not_under(db, &sealed, batch.current, after, batch.limit)?;
        Ok(found
            .into_iter()
            .map(|(client_id, key, response)| (AnswerOf { client_id, key }, response))
            .collect())
    }

    /// An answer no configured key opens is deleted rather than stopping the start: it is a
    /// cache that lives 24 hours and can never be replayed again (its replay is a 409 that
    /// asks for a new key), while everything it answered for is kept, sealed, in its own
    /// row. With it gone the key is free, and a retry under it is taken as a new request.
    fn plan(secrets: &Secrets, of: &AnswerOf, was: &String) -> Result<Fate<String>, Unopened> {
        match secrets.reseal(&context(&of.client_id, &of.key), was) {
            Ok(None) => Ok(Fate::Keep),
            Ok(Some(now)) => Ok(Fate::Replace(now)),
            Err(ResealError::Open(e)) => {
                tracing::warn!(error = %e, answer = %of, "a stored Idempotency-Key answer no longer opens; it is deleted");
                Ok(Fate::Delete)
            }
            Err(source) => Err(Unopened {
                column: "response",
                source,
            }),
        }
    }

    fn replace(
        db: &mut Db<'_>,
        of: &AnswerOf,
        was: &String,
        now: &String,
    ) -> Result<usize, DieselError> {
        idempotency::replace_response(db, (&of.client_id, &of.key), was, now)
    }

    fn delete(db: &mut Db<'_>, of: &AnswerOf, was: &String) -> Result<usize, DieselError> {
        idempotency::delete_response(db, (&of.client_id, &of.key), was)
    }
}
