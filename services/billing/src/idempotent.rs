//! A create under an Idempotency-Key runs once per key: a replay answers the stored
//! response. The route reads the key with [`Once::of`]; the command runs its transaction
//! through [`run`], so the stored response and the change commit together.

use actix_web::HttpResponse;
pub(crate) use coffer_http::idempotency::Once;
use coffer_http::idempotency::Outcome;
use coffer_store::Db;

use crate::error::Failure;
use crate::state::BillingState;

/// Runs `effect` once under `once`'s key, on billing's store and clock.
pub(crate) async fn run<F>(
    once: Once,
    state: &BillingState,
    effect: F,
) -> Result<HttpResponse, Failure>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, Failure> + Send + 'static,
{
    once.run(&state.store, state.clock.as_ref(), effect)
        .await
        .map_err(Failure::Api)
}
