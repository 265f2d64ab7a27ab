//! RaiseNow's own names for events (`raisenow.<context>.<object>.<action>`), and which of
//! Coffer's events each one is. Clients written for RaiseNow subscribe with these names and
//! match deliveries on them. RaiseNow's contexts are not Coffer's domains (`payments`
//! against `payment_gateway`) and one object is named differently (`reversal` against
//! `refund`), so the names are paired in one table rather than derived by swapping a prefix.
//! docs/events.md shows the table; docs/decisions/event-names.md says why it is so.

use crate::EventType;
use crate::catalogue::{
    ONBOARDING_PROCESS_CREATED, PAYMENT_FAILED, PAYMENT_SUCCEEDED, RECONCILIATION_REPORT_CREATED,
    REFUND_SUCCEEDED, SUBSCRIPTION_ACTIVATED, SUBSCRIPTION_CANCELLED, SUBSCRIPTION_CREATED,
    SUBSCRIPTION_SUSPENDED,
};

/// How every name in RaiseNow's own form starts.
pub const PREFIX: &str = "raisenow.";

/// Every event RaiseNow documents (docs.raisenow.com/events), with Coffer's event where
/// Coffer has one. A name is here only when RaiseNow documents it.
pub const TABLE: &[(&str, Option<&EventType>)] = &[
    (
        "raisenow.payments.payment.succeeded",
        Some(&PAYMENT_SUCCEEDED),
    ),
    ("raisenow.payments.payment.failed", Some(&PAYMENT_FAILED)),
    // RaiseNow's word for money given back on a payment; Coffer's refund is that.
    (
        "raisenow.payments.reversal.succeeded",
        Some(&REFUND_SUCCEEDED),
    ),
    (
        "raisenow.subscriptions.subscription.created",
        Some(&SUBSCRIPTION_CREATED),
    ),
    (
        "raisenow.subscriptions.subscription.activated",
        Some(&SUBSCRIPTION_ACTIVATED),
    ),
    (
        "raisenow.subscriptions.subscription.suspended",
        Some(&SUBSCRIPTION_SUSPENDED),
    ),
    (
        "raisenow.subscriptions.subscription.cancelled",
        Some(&SUBSCRIPTION_CANCELLED),
    ),
    (
        "raisenow.reconciliation.reconciliation_report.created",
        Some(&RECONCILIATION_REPORT_CREATED),
    ),
    // Coffer does not approve organisations: they can be used as soon as they exist.
    (
        "raisenow.organisations.organisation.approval_requested",
        None,
    ),
    ("raisenow.organisations.organisation.approved", None),
    ("raisenow.organisations.organisation.declined", None),
    (
        "raisenow.onboarding.onboarding_process.created",
        Some(&ONBOARDING_PROCESS_CREATED),
    ),
];

/// What a name in RaiseNow's own form is to Coffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaiseNowName {
    /// RaiseNow's name for this event of Coffer's.
    Shared(&'static EventType),
    /// RaiseNow documents it; Coffer has no such event.
    RaiseNowOnly,
    /// RaiseNow documents no event of this name.
    Unknown,
}

/// What `name` (in RaiseNow's own form) names; names are compared exactly.
pub fn read(name: &str) -> RaiseNowName {
    match TABLE.iter().find(|(known, _)| *known == name) {
        Some((_, Some(kind))) => RaiseNowName::Shared(kind),
        Some((_, None)) => RaiseNowName::RaiseNowOnly,
        None => RaiseNowName::Unknown,
    }
}

/// RaiseNow's name for `kind`, when RaiseNow has the event.
pub fn of(kind: &EventType) -> Option<&'static str> {
    TABLE
        .iter()
        .find(|(_, shared)| shared.is_some_and(|k| k == kind))
        .map(|(name, _)| *name)
}

/// RaiseNow's names for which Coffer has no event, in the table's order.
pub fn raisenow_only() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .filter(|(_, shared)| shared.is_none())
        .map(|(name, _)| *name)
}

/// The part of docs/events.md that says how subscriptions in each form are delivered.
pub fn markdown() -> String {
    let only: Vec<String> = raisenow_only().map(|n| format!("`{n}`")).collect();
    format!(
        "\n## Names a subscription may use\n\n\
         An event subscription (`POST /event-subscriptions`, docs/webhooks.md) names its event \
         in either of two forms:\n\n\
         - Coffer's, `<prefix>.event.<domain>.<object>.<action>` under any prefix: only the part \
         from `.event.` on is matched. RaiseNow's \"adjusted\" form is this one with the prefix \
         `rnw`, so `rnw.event.payment_gateway.payment.succeeded` and \
         `coffer.event.payment_gateway.payment.succeeded` name the same event.\n\
         - RaiseNow's own, `raisenow.<context>.<object>.<action>`, as the table above gives it \
         (`raisenow.payments.payment.succeeded`). RaiseNow's contexts are not Coffer's domains, \
         so these names are looked up in the table, never made by changing a prefix.\n\n\
         Every delivery of a subscription carries, as `event.name`, the name the subscription \
         was made with, exactly as it was sent: a subscription to \
         `raisenow.payments.payment.succeeded` receives `\"name\": \
         \"raisenow.payments.payment.succeeded\"`, one to \
         `rnw.event.payment_gateway.payment.succeeded` receives that name, and one to \
         `coffer.event.payment_gateway.payment.succeeded` receives Coffer's. Nothing else in \
         the envelope changes (`id`, which is also `webhook-id`, `timestamp`, `object`, \
         `object_uuid`, `organisation_uuid`, `account_uuid` and `data`), and the signature is \
         made over the body as delivered. A subscription's `filter` reads `event.name` as the \
         subscription's name too.\n\n\
         An event owes an endpoint one delivery however many of its subscriptions match, so \
         when one endpoint has subscriptions to the same event under different names, the \
         delivery carries the name of the first of them as `GET /event-subscriptions` lists them \
         (oldest first); subscribe another endpoint to receive the event under another name \
         as well.\n\n\
         RaiseNow's names are those RaiseNow documents (docs.raisenow.com/events). Its \
         `reversal` is Coffer's refund: a subscription to \
         `raisenow.payments.reversal.succeeded` receives \
         `payment_gateway.refund.succeeded`, whose `data` is Coffer's refund with \
         `payment_uuid`. Why a table, and what is refused: docs/decisions/event-names.md.\n\n\
         A `raisenow.` name the table does not hold is refused with 400 naming `event_name`. \
         So are the names RaiseNow documents for events Coffer does not have ({}), with a \
         message that says Coffer has no such event.\n",
        only.join(", ")
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::catalogue::{CATALOGUE, PAYMENT_CANCELLED, SUPPORTER_CREATED};

    #[test]
    fn raisenow_names_read_as_coffer_events_through_the_table_not_the_prefix() {
        assert_eq!(
            read("raisenow.payments.payment.succeeded"),
            RaiseNowName::Shared(&PAYMENT_SUCCEEDED)
        );
        assert_eq!(
            read("raisenow.subscriptions.subscription.activated"),
            RaiseNowName::Shared(&SUBSCRIPTION_ACTIVATED)
        );
        assert_eq!(
            read("raisenow.payments.reversal.succeeded"),
            RaiseNowName::Shared(&REFUND_SUCCEEDED)
        );
        assert_eq!(
            read("raisenow.organisations.organisation.approved"),
            RaiseNowName::RaiseNowOnly
        );
        for unknown in [
            // Coffer's domain under RaiseNow's prefix is not a RaiseNow name.
            "raisenow.payment_gateway.payment.succeeded",
            "raisenow.payments.refund.succeeded",
            "raisenow.payments.payment.succeeded.extra",
            "Raisenow.payments.payment.succeeded",
            "raisenow.",
            "",
        ] {
            assert_eq!(read(unknown), RaiseNowName::Unknown, "{unknown}");
        }
    }

    #[test]
    fn each_coffer_event_has_one_raisenow_name_at_most_and_back() {
        assert_eq!(
            of(&PAYMENT_SUCCEEDED),
            Some("raisenow.payments.payment.succeeded")
        );
        assert_eq!(of(&PAYMENT_CANCELLED), None);
        assert_eq!(of(&SUPPORTER_CREATED), None);
        for (name, shared) in TABLE {
            assert!(name.starts_with(PREFIX), "{name}");
            assert_eq!(name.split('.').count(), 4, "{name}");
            assert!(
                !name.contains(".event."),
                "{name}: would read as the catalogue's form"
            );
            if let Some(kind) = shared {
                assert!(CATALOGUE.contains(kind), "{name}");
                assert_eq!(of(kind), Some(*name), "{name}: one name per event");
                assert_eq!(read(name), RaiseNowName::Shared(kind));
            }
        }
        let mut names: Vec<&str> = TABLE.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len(), "each name once");
        assert_eq!(raisenow_only().count(), 3);
    }
}
