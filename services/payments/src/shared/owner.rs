//! The check that a caller owns what they touch: every payment and payment source belongs
//! to an account of an organisation, and only a caller who may act for that account may
//! read or change it.

use coffer_auth::Caller;

use crate::error::PaymentsError;

/// Refuses a caller who may not touch the account (and organisation) a payment or a
/// source belongs to.
pub(crate) fn require_owner(
    caller: &Caller,
    account_uuid: &str,
    organisation_uuid: &str,
) -> Result<(), PaymentsError> {
    Ok(caller.require_account(
        account_uuid.parse().map_err(PaymentsError::internal)?,
        organisation_uuid.parse().map_err(PaymentsError::internal)?,
    )?)
}
