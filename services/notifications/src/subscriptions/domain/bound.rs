//! How many event subscriptions an organisation may have. Each one is matched against
//! every event of its organisation, and a client that finds its subscription by listing
//! reads them all (the list is never cut unasked), so their number is bounded: one more
//! than [`MOST`] is refused as a validation failure naming `organisation_uuid`
//! (docs/webhooks.md). A few dozen events on each of a few endpoints is what integrations
//! make; the bound is far above it.

use coffer_model::validation::FieldError;

/// Event subscriptions an organisation may have, on or off.
pub const MOST: u64 = 2_000;

/// Whether an organisation with `existing` subscriptions may make one more.
pub fn one_more(existing: u64) -> Result<(), FieldError> {
    crate::endpoints::domain::bound::one_more_of("event subscriptions", existing, MOST)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_reached_at_its_number_and_named() {
        assert!(one_more(MOST - 1).is_ok());
        let refused = one_more(MOST).unwrap_err();
        assert_eq!(refused.property, "organisation_uuid");
        assert!(refused.message.contains("2000"), "{}", refused.message);
    }
}
