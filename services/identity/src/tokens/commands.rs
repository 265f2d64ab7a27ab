//! Token use cases: the client-credentials grant, throttled on failure.

use std::net::IpAddr;

use super::issuer::{GrantError, IssuedToken, TokenIssuer};
use crate::state::IdentityState;

/// A token for the client that proves its secret. A failure is counted against the client
/// id and the address it came `from`; once either has failed too often, failures are
/// answered `Throttled`. The secret is checked either way, so the right one always
/// gets its token.
pub(crate) async fn client_credentials(
    state: &IdentityState,
    issuer: &TokenIssuer,
    client_id: &str,
    secret: &str,
    from: IpAddr,
) -> Result<IssuedToken, GrantError> {
    match issuer.client_credentials(client_id, secret).await {
        Err(GrantError::InvalidClient) => Err(failed_client(state, client_id, from)),
        other => other,
    }
}

/// A failed client authentication (this grant's, or the code exchange's of sso/): counted
/// against the client id and the address, and answered `Throttled` once either has
/// failed too often.
pub(crate) fn failed_client(state: &IdentityState, client_id: &str, from: IpAddr) -> GrantError {
    match state.failures.failed(client_id, from) {
        None => GrantError::InvalidClient,
        Some(retry_after) => GrantError::Throttled { retry_after },
    }
}
