//! Token use cases: the client-credentials grant, throttled on failure.

use std::net::IpAddr;

use super::issuer::{GrantError, IssuedToken, TokenIssuer};
use crate::error::CommandError;
use crate::state::IdentityState;

/// A token for the client that proves its secret. A failure is counted against the client
/// id and the address it came `from`; once either has failed too often, failures are
/// answered throttled. The secret is checked either way, so the right one always
/// gets its token.
pub(crate) async fn client_credentials(
    state: &IdentityState,
    issuer: &TokenIssuer,
    client_id: &str,
    secret: &str,
    from: IpAddr,
) -> Result<IssuedToken, CommandError> {
    match issuer.client_credentials(client_id, secret).await {
        Err(GrantError::InvalidClient) => Err(state.failures.refuse(client_id, from).into()),
        other => Ok(other?),
    }
}
