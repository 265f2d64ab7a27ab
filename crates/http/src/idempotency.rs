//! `Idempotency-Key` on creating POSTs (API.md, Conventions): the same key with the same
//! body within 24 hours replays the first response; the same key with another body is 409.
//! The first response is stored in the transaction of its effect, so an effect without its
//! stored response (or the reverse) cannot exist.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse};
use aws_lc_rs::digest::{SHA256, digest};
use coffer_error::ApiError;
use coffer_model::clock::Clock;
use coffer_secrets::{ResealError, SEALED_PREFIX, Secrets, is_sealed};
use coffer_store::idempotency::{self, StoredResponse};
use coffer_store::resealing::{
    self, Batch, Fate, Found, PassError, Resealed, SealedTable, Unopened,
};
use coffer_store::{Db, Store, StoreError};
use diesel::result::{DatabaseErrorKind, Error as DieselError};

const WINDOW_MS: i64 = 24 * 3600 * 1000;

/// The request's `Idempotency-Key`, if it sent one.
#[derive(Debug, Clone)]
pub struct IdempotencyKey(pub Option<String>);

impl FromRequest for IdempotencyKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = req.headers().get("idempotency-key") else {
            return ready(Ok(IdempotencyKey(None)));
        };
        let valid = value
            .to_str()
            .ok()
            .filter(|v| !v.is_empty() && v.len() <= 255 && v.bytes().all(|b| b.is_ascii_graphic()));
        ready(match valid {
            Some(v) => Ok(IdempotencyKey(Some(v.to_owned()))),
            None => Err(ApiError::invalid(
                "Idempotency-Key",
                "must be 1 to 255 visible ASCII characters",
            )),
        })
    }
}

/// What identifies "the same request": the operation and the body as parsed.
pub fn request_hash(req: &HttpRequest, body: &serde_json::Value) -> String {
    let mut input = format!("{} {}\n", req.method(), req.path()).into_bytes();
    input.extend(serde_json::to_vec(body).unwrap_or_default());
    digest(&SHA256, &input)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An effect's outcome: status and JSON body.
pub type Outcome = (StatusCode, serde_json::Value);

/// One create under an optional Idempotency-Key, as the route reads it: who asks (keys are
/// each client's own), the key, and what makes a repeat "the same request". The command
/// runs its transaction through [`Once::run`] or [`Once::run_sealed`].
pub struct Once {
    pub client: String,
    pub key: IdempotencyKey,
    /// The request's method, path and body, digested: a key reused for another request is
    /// refused.
    pub hash: String,
}

impl Once {
    pub fn of(
        caller: &coffer_auth::Caller,
        key: IdempotencyKey,
        req: &HttpRequest,
        body: &serde_json::Value,
    ) -> Self {
        Once {
            client: caller.client_id().to_owned(),
            key,
            hash: request_hash(req, body),
        }
    }

    /// [`run`] under this request's key.
    pub async fn run<F, E>(
        self,
        store: &Store,
        clock: &dyn Clock,
        effect: F,
    ) -> Result<HttpResponse, ApiError>
    where
        F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
        E: From<DieselError> + Into<ApiError> + Send + 'static,
    {
        run(store, clock, &self.client, self.key, self.hash, effect).await
    }

    /// [`run_sealed`] under this request's key.
    pub async fn run_sealed<F, E>(
        self,
        store: &Store,
        clock: &dyn Clock,
        secrets: &Secrets,
        effect: F,
    ) -> Result<HttpResponse, ApiError>
    where
        F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
        E: From<DieselError> + Into<ApiError> + Send + 'static,
    {
        run_sealed(
            store,
            clock,
            secrets,
            &self.client,
            self.key,
            self.hash,
            effect,
        )
        .await
    }
}

/// How a key's first response is kept: as it is, or sealed under the service's master keys
/// when it carries a secret the service keeps sealed elsewhere (a webhook's signing key and
/// password, an onboarding process's token), so that the idempotency table is no way round
/// the sealing of the object's own row.
#[derive(Clone)]
enum Keeping {
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
    fn store(
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

fn context(client_id: &str, key: &str) -> String {
    format!("idempotency.response:{client_id}:{key}")
}

/// Seals again the answers a service stored sealed ([`run_sealed`]) under a master key that
/// is no longer current; every service that stores sealed answers runs it at start.
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

fn replay(
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

/// Runs `effect` in a write transaction, storing its outcome under the key when there is one,
/// or replays the stored outcome of an earlier request with the same key. The transaction
/// may be shared with other writes ([`Store::write`]), so `effect` may run more than once.
pub async fn run<F, E>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    run_keeping(store, clock, Keeping::Plain, client_id, key, hash, effect).await
}

/// [`run`] for an operation whose response carries a secret the service keeps sealed: the
/// stored response is sealed under `secrets` too.
pub async fn run_sealed<F, E>(
    store: &Store,
    clock: &dyn Clock,
    secrets: &Secrets,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let keeping = Keeping::Sealed(secrets.clone());
    run_keeping(store, clock, keeping, client_id, key, hash, effect).await
}

async fn run_keeping<F, E>(
    store: &Store,
    clock: &dyn Clock,
    keeping: Keeping,
    client_id: &str,
    key: IdempotencyKey,
    hash: String,
    mut effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let now = clock.unix_ms();
    let since = now - WINDOW_MS;
    let Some(key) = key.0 else {
        let (status, body) = store
            .write(move |db| effect(db).map_err(Failure::Effect))
            .await
            .map_err(Failure::into_api)?;
        return Ok(HttpResponse::build(status).json(body));
    };
    let (client, k) = (client_id.to_owned(), key.clone());
    if let Some(stored) = store
        .query(move |db| idempotency::find(db, &client, &k, since))
        .await?
    {
        return replay(&stored, &hash, &keeping);
    }
    let (client, k, h) = (client_id.to_owned(), key.clone(), hash.clone());
    let sealing = keeping.clone();
    let result = store
        .write(move |tx| {
            let (status, body) = effect(tx).map_err(Failure::Effect)?;
            let (request_hash, response) = sealing
                .store((&client, &k), &h, &body)
                .map_err(Failure::Sealing)?;
            let row = StoredResponse {
                client_id: client.clone(),
                idempotency_key: k.clone(),
                request_hash,
                status: i32::from(status.as_u16()),
                response,
                created_ms: now,
            };
            idempotency::save(tx, &row, since).map_err(Failure::Store)?;
            Ok((status, body))
        })
        .await;
    match result {
        Ok((status, body)) => Ok(HttpResponse::build(status).json(body)),
        // Another request with this key committed first: answer as it did.
        Err(Failure::Store(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _))) => {
            let client = client_id.to_owned();
            match store
                .query(move |db| idempotency::find(db, &client, &key, since))
                .await?
            {
                Some(stored) => replay(&stored, &hash, &keeping),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            }
        }
        // The effect refused because another request with this key made the same thing
        // meanwhile (a plan's name is taken, by that request's plan): the answer is that
        // request's. Any other refusal stands.
        Err(other) => {
            let client = client_id.to_owned();
            match store
                .query(move |db| idempotency::find(db, &client, &key, since))
                .await?
            {
                Some(stored) => replay(&stored, &hash, &keeping),
                None => Err(other.into_api()),
            }
        }
    }
}

/// What [`reserve`] found: the effect is new and ran (its record is in progress under the
/// key), or an earlier request's, finished or still in progress.
pub enum Reservation<T> {
    Fresh(T),
    Replay(HttpResponse),
    /// An earlier request under this key began and has not finished: what it recorded.
    InProgress(serde_json::Value),
}

/// For an effect that calls outside Coffer between two transactions: runs `effect` in a
/// write transaction and, under the key, records `marker(&result)` as in progress, so a
/// retry finds the first request's work instead of doing it again. [`complete`] stores the
/// final response in the transaction that records the outcome.
pub async fn reserve<T, F, E>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: &IdempotencyKey,
    hash: String,
    mut effect: F,
    marker: fn(&T) -> serde_json::Value,
) -> Result<Reservation<T>, ApiError>
where
    T: Send + 'static,
    F: FnMut(&mut Db<'_>) -> Result<T, E> + Send + 'static,
    E: From<DieselError> + Into<ApiError> + Send + 'static,
{
    let now = clock.unix_ms();
    if key.0.is_none() {
        let done = store
            .write(move |db| effect(db).map_err(Failure::Effect))
            .await
            .map_err(Failure::into_api)?;
        return Ok(Reservation::Fresh(done));
    }
    if let Some(found) = earlier(store, clock, client_id, key, &hash).await? {
        return Ok(found);
    }
    let (client, k, h) = (client_id.to_owned(), key.clone(), hash.clone());
    let result = store
        .write(move |tx| {
            let done = effect(tx).map_err(Failure::Effect)?;
            hold(tx, now, &client, &k, &h, &marker(&done)).map_err(Failure::Store)?;
            Ok(done)
        })
        .await;
    match result {
        Ok(done) => Ok(Reservation::Fresh(done)),
        Err(Failure::Store(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _))) => {
            match earlier(store, clock, client_id, key, &hash).await? {
                Some(found) => Ok(found),
                None => Err(ApiError::conflict(
                    "A request with this Idempotency-Key is in progress",
                )),
            }
        }
        // As in [`run`]: a refusal caused by the request that holds the key meanwhile is
        // answered as that request.
        Err(other) => match earlier(store, clock, client_id, key, &hash).await? {
            Some(found) => Ok(found),
            None => Err(other.into_api()),
        },
    }
}

/// What an earlier request under `key` left within the window: its final response (or a
/// 409 for another body), or the record it marked while still in progress. None when the
/// key is new, or when no key was sent.
pub async fn earlier<T>(
    store: &Store,
    clock: &dyn Clock,
    client_id: &str,
    key: &IdempotencyKey,
    hash: &str,
) -> Result<Option<Reservation<T>>, ApiError> {
    let Some(k) = key.0.clone() else {
        return Ok(None);
    };
    let since = clock.unix_ms() - WINDOW_MS;
    let client = client_id.to_owned();
    let Some(stored) = store
        .query(move |db| idempotency::find(db, &client, &k, since))
        .await?
    else {
        return Ok(None);
    };
    if stored.request_hash != hash || stored.status != idempotency::IN_PROGRESS {
        return replay(&stored, hash, &Keeping::Plain).map(|r| Some(Reservation::Replay(r)));
    }
    let marker = serde_json::from_str(&stored.response).map_err(ApiError::internal)?;
    Ok(Some(Reservation::InProgress(marker)))
}

/// What [`hold_while`] found under a key: nothing, so the request goes on, holding it; or
/// an earlier request's finished answer, to give instead.
pub enum Held {
    Fresh,
    Answered(HttpResponse),
}

/// For an effect that spans several transactions, so that its answer cannot be stored in
/// the transaction of its effect, and that is safe to run again (a bank file read twice
/// matches nothing twice): holds the key in progress while the request runs. A request
/// racing under the key waits up to `wait` for the first one's answer and gives it (409
/// if it has not come by then) rather than run the effect again. A hold older than
/// `stale_after` belongs to a request that stopped without finishing (a crash), and is
/// taken over. The caller ends the hold with [`finish`] or [`give_back`].
pub async fn hold_while(
    store: &Store,
    clock: &dyn Clock,
    (client_id, key, hash): (&str, &IdempotencyKey, &str),
    wait: std::time::Duration,
    stale_after: std::time::Duration,
) -> Result<Held, ApiError> {
    let Some(k) = key.0.clone() else {
        return Ok(Held::Fresh);
    };
    let stale_ms = i64::try_from(stale_after.as_millis()).unwrap_or(i64::MAX);
    let started = tokio::time::Instant::now();
    loop {
        match earlier::<()>(store, clock, client_id, key, hash).await? {
            Some(Reservation::Replay(answer)) => return Ok(Held::Answered(answer)),
            Some(_) => {
                let (client, k) = (client_id.to_owned(), k.clone());
                let before = clock.unix_ms().saturating_sub(stale_ms);
                let taken = store
                    .write(move |tx| {
                        idempotency::release_stale(tx, &client, &k, before)
                            .map_err(StoreError::from)
                    })
                    .await?;
                if !taken {
                    if started.elapsed() >= wait {
                        return Err(ApiError::conflict(
                            "A request with this Idempotency-Key is in progress",
                        ));
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            }
            None => {}
        }
        let (client, key, hash) = (client_id.to_owned(), key.clone(), hash.to_owned());
        let now = clock.unix_ms();
        let marker = serde_json::json!({});
        let held = store
            .write(move |tx| {
                hold(tx, now, &client, &key, &hash, &marker).map_err(Failure::<ApiError>::Store)
            })
            .await;
        match held {
            Ok(()) => return Ok(Held::Fresh),
            // Another request took the key meanwhile: wait for its answer as above.
            Err(Failure::Store(DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation,
                _,
            ))) => {}
            Err(other) => return Err(other.into_api()),
        }
    }
}

/// Stores the answer of a request [`hold_while`] let through, in a transaction of its own.
pub async fn finish(
    store: &Store,
    client_id: &str,
    key: &IdempotencyKey,
    outcome: Outcome,
) -> Result<(), ApiError> {
    let (client, key) = (client_id.to_owned(), key.clone());
    store
        .write(move |tx| complete(tx, &client, &key, &outcome).map_err(StoreError::from))
        .await?;
    Ok(())
}

/// Ends the hold of a request [`hold_while`] let through that failed, so the key may be
/// used again.
pub async fn give_back(
    store: &Store,
    client_id: &str,
    key: &IdempotencyKey,
) -> Result<(), ApiError> {
    let (client, key) = (client_id.to_owned(), key.clone());
    store
        .write(move |tx| release(tx, &client, &key).map_err(StoreError::from))
        .await?;
    Ok(())
}

/// Holds `key` in progress, marked with `marker`, in the transaction of its effect (as
/// [`reserve`] does; a command that reserves several requests' keys in one transaction
/// calls it for each). A key held meanwhile by another request fails the transaction with
/// a unique violation. No key, nothing to hold.
pub fn hold(
    tx: &mut Db<'_>,
    now_ms: i64,
    client_id: &str,
    key: &IdempotencyKey,
    hash: &str,
    marker: &serde_json::Value,
) -> Result<(), DieselError> {
    let Some(k) = &key.0 else {
        return Ok(());
    };
    let row = StoredResponse {
        client_id: client_id.to_owned(),
        idempotency_key: k.clone(),
        request_hash: hash.to_owned(),
        status: idempotency::IN_PROGRESS,
        response: marker.to_string(),
        created_ms: now_ms,
    };
    idempotency::save(tx, &row, now_ms - WINDOW_MS)
}

/// Stores the final response of a [`reserve`]d key, in the transaction of the outcome.
pub fn complete(
    tx: &mut Db<'_>,
    client_id: &str,
    key: &IdempotencyKey,
    outcome: &Outcome,
) -> Result<(), DieselError> {
    match &key.0 {
        None => Ok(()),
        Some(k) => idempotency::complete(
            tx,
            client_id,
            k,
            i32::from(outcome.0.as_u16()),
            &outcome.1.to_string(),
        ),
    }
}

/// Gives back a [`reserve`]d key whose effect recorded nothing, so it may be used again.
pub fn release(tx: &mut Db<'_>, client_id: &str, key: &IdempotencyKey) -> Result<(), DieselError> {
    match &key.0 {
        None => Ok(()),
        Some(k) => idempotency::release(tx, client_id, k),
    }
}

/// Why an idempotent transaction failed: the effect itself, or storing its response.
enum Failure<E> {
    Effect(E),
    Store(DieselError),
    Pool(StoreError),
    Sealing(ApiError),
}

impl<E> From<DieselError> for Failure<E> {
    fn from(e: DieselError) -> Self {
        Failure::Store(e)
    }
}

impl<E> From<StoreError> for Failure<E> {
    fn from(e: StoreError) -> Self {
        Failure::Pool(e)
    }
}

impl<E: Into<ApiError>> Failure<E> {
    fn into_api(self) -> ApiError {
        match self {
            Failure::Effect(e) => e.into(),
            Failure::Store(e) => ApiError::from(StoreError::from(e)),
            Failure::Pool(e) => ApiError::from(e),
            Failure::Sealing(e) => e,
        }
    }
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
