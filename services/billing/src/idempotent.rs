//! A create under an Idempotency-Key runs once per key: a replay answers the stored
//! response. The key and what identifies the request are read by the route; the command
//! runs its transaction through [`Once::run`], so the stored response and the change
//! commit together.

use actix_web::{HttpRequest, HttpResponse};
use coffer_auth::Caller;
use coffer_http::idempotency::{self, IdempotencyKey, Outcome};
use coffer_store::Db;
use serde_json::Value;

use crate::error::Failure;
use crate::state::BillingState;

pub(crate) struct Once {
    pub client: String,
    pub key: IdempotencyKey,
    /// The request's method, path and body, digested: a key reused for another request is
    /// refused.
    pub hash: String,
}

impl Once {
    pub fn of(caller: &Caller, key: IdempotencyKey, req: &HttpRequest, body: &Value) -> Self {
        Once {
            client: caller.client_id().to_owned(),
            key,
            hash: idempotency::request_hash(req, body),
        }
    }

    pub async fn run<F>(self, state: &BillingState, effect: F) -> Result<HttpResponse, Failure>
    where
        F: FnMut(&mut Db<'_>) -> Result<Outcome, Failure> + Send + 'static,
    {
        idempotency::run(
            &state.store,
            state.clock.as_ref(),
            &self.client,
            self.key,
            self.hash,
            effect,
        )
        .await
        .map_err(Failure::Api)
    }
}
