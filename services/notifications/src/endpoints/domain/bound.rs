//! How many endpoints an organisation may have. Each endpoint owes a delivery of every
//! event it subscribes to, so an organisation with thousands could crowd the sender, and a
//! list of them would grow past what a client reads at once. One more than the bound
//! (`notifications.max_endpoints_per_organisation`) is refused as a validation failure
//! naming `organisation_uuid`, the property the limit is of (docs/webhooks.md).

use coffer_model::validation::FieldError;

/// Whether an organisation with `existing` endpoints may make one more, when it may have
/// `most`.
pub fn one_more(existing: u64, most: usize) -> Result<(), FieldError> {
    one_more_of(
        "webhook endpoints",
        existing,
        u64::try_from(most).unwrap_or(u64::MAX),
    )
}

/// Whether an organisation with `existing` of `things` may make one more, when it may have
/// `most`; refused naming `organisation_uuid`, the property the bound is of.
pub fn one_more_of(things: &str, existing: u64, most: u64) -> Result<(), FieldError> {
    if existing < most {
        return Ok(());
    }
    Err(FieldError::not_valid(
        "organisation_uuid",
        format!(
            "The organisation has {existing} {things} and may have at most {most}; delete \
             one before making another"
        ),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_reached_at_its_number_and_named() {
        assert!(one_more(0, 1).is_ok());
        assert!(one_more(99, 100).is_ok());
        let refused = one_more(100, 100).unwrap_err();
        assert_eq!(refused.property, "organisation_uuid");
        assert_eq!(refused.code, "error.validation.not_valid");
        assert!(refused.message.contains("100"), "{}", refused.message);
        assert!(
            one_more(250, 100).is_err(),
            "made before the bound was lowered"
        );
    }
}
