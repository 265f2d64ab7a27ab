//! A create under an Idempotency-Key runs once per key: a replay answers the stored
//! response. The route reads the key with [`Once::of`]; the command runs its transaction
//! through [`run`], so the stored response and the change commit together.

use actix_web::HttpResponse;
use coffer_http::ApiError;
pub(crate) use coffer_http::idempotency::Once;
use coffer_http::idempotency::Outcome;
use coffer_store::Db;

use crate::state::BillingState;

/// Runs `effect` once under `once`'s key, on billing's store and clock. The answer is the
/// helper's own `ApiError`; commands carry it on with `?`.
pub(crate) async fn run<F, E>(
    once: Once,
    state: &BillingState,
    effect: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&mut Db<'_>) -> Result<Outcome, E> + Send + 'static,
    E: From<diesel::result::Error> + Into<ApiError> + Send + 'static,
{
    once.run(&state.store, state.clock.as_ref(), effect).await
}
