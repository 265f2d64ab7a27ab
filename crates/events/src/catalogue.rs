//! Every event Coffer emits, in one typed list. docs/events.md is generated from it by
//! events_doc.rs (a test keeps the two equal; `COFFER_UPDATE_DOCS=1 cargo test -p
//! coffer-events` rewrites it).

/// One kind of event: `<prefix>.event.<domain>.<object>.<action>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventType {
    /// The emitting domain; also names the bus topic.
    pub domain: &'static str,
    pub object: &'static str,
    pub action: &'static str,
    /// What happened, and what `data` holds.
    pub description: &'static str,
}

impl EventType {
    pub fn name(&self, prefix: &str) -> String {
        format!(
            "{prefix}.event.{}.{}.{}",
            self.domain, self.object, self.action
        )
    }

    /// The topic of the domain: one per domain, so a consumer subscribes to what it needs.
    pub fn topic(&self, prefix: &str) -> String {
        topic(prefix, self.domain)
    }

    /// Whether an event's name is this type's, under whatever prefix the deployment uses.
    pub fn is(&self, name: &str) -> bool {
        name.split_once(".event.").is_some_and(|(_, rest)| {
            let mut parts = rest.splitn(3, '.');
            parts.next() == Some(self.domain)
                && parts.next() == Some(self.object)
                && parts.next() == Some(self.action)
        })
    }

    /// Whether `name` is a catalogued event about this type's kind of object (its domain
    /// and object), by any action: the copies another service keeps read every such event,
    /// since each carries the whole object as it now stands.
    pub fn any_action(&self, name: &str) -> bool {
        CATALOGUE
            .iter()
            .any(|kind| kind.domain == self.domain && kind.object == self.object && kind.is(name))
    }
}

pub fn topic(prefix: &str, domain: &str) -> String {
    format!("{prefix}.events.{domain}")
}

pub const ORGANISATION_CREATED: EventType = EventType {
    domain: "identity",
    object: "organisation",
    action: "created",
    description: "An organisation was created. `data` is the organisation in its single form.",
};

pub const ORGANISATION_UPDATED: EventType = EventType {
    domain: "identity",
    object: "organisation",
    action: "updated",
    description: "An organisation, its addresses or its metadata changed. `data` is the \
                  organisation in its single form.",
};

pub const ACCOUNT_CREATED: EventType = EventType {
    domain: "identity",
    object: "account",
    action: "created",
    description: "An account was created. `data` is the account in its single form.",
};

pub const ACCOUNT_UPDATED: EventType = EventType {
    domain: "identity",
    object: "account",
    action: "updated",
    description: "An account, its addresses, metadata or billing data changed. `data` is the \
                  account in its single form.",
};

pub const SUPPORTER_CREATED: EventType = EventType {
    domain: "supporters",
    object: "supporter",
    action: "created",
    description: "A supporter was created. `data` is the supporter as the API returns it.",
};

pub const SUPPORTER_UPDATED: EventType = EventType {
    domain: "supporters",
    object: "supporter",
    action: "updated",
    description: "A supporter was changed. `data` is the supporter as the API returns it.",
};

pub const PAYMENT_SUCCEEDED: EventType = EventType {
    domain: "payment_gateway",
    object: "payment",
    action: "succeeded",
    description: "A payment succeeded. `data` is the payment as the API returns it.",
};

pub const PAYMENT_FAILED: EventType = EventType {
    domain: "payment_gateway",
    object: "payment",
    action: "failed",
    description: "A payment failed; `data.status_reason` says why. `data` is the payment.",
};

pub const PAYMENT_CANCELLED: EventType = EventType {
    domain: "payment_gateway",
    object: "payment",
    action: "cancelled",
    description: "A pending payment was cancelled. `data` is the payment.",
};

pub const REFUND_SUCCEEDED: EventType = EventType {
    domain: "payment_gateway",
    object: "refund",
    action: "succeeded",
    description: "A payment was refunded, in whole or in part. `data` is the refund with \
                  `payment_uuid`.",
};

pub const DISPUTE_OPENED: EventType = EventType {
    domain: "payment_gateway",
    object: "dispute",
    action: "opened",
    description: "The donor's bank disputed a payment charged through a provider (a \
                  chargeback). `data` is the dispute with `payment_uuid`, `amount`, `reason` \
                  and `status` as the provider says them.",
};

pub const DISPUTE_UPDATED: EventType = EventType {
    domain: "payment_gateway",
    object: "dispute",
    action: "updated",
    description: "A dispute's status moved on (evidence under review, say). `data` is the \
                  dispute.",
};

pub const DISPUTE_CLOSED: EventType = EventType {
    domain: "payment_gateway",
    object: "dispute",
    action: "closed",
    description: "A dispute was decided; `data.status` says how (`won`, `lost`, ...). `data` \
                  is the dispute.",
};

pub const PAYMENT_SOURCE_CREATED: EventType = EventType {
    domain: "payment_gateway",
    object: "payment_source",
    action: "created",
    description: "An instrument was stored and can be charged again. `data` is the payment \
                  source.",
};

pub const PAYMENT_SOURCE_FAILED: EventType = EventType {
    domain: "payment_gateway",
    object: "payment_source",
    action: "failed",
    description: "An instrument could not be stored; `data.status_reason` says why.",
};

pub const SUBSCRIPTION_CREATED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "created",
    description: "A subscription was created (pending or active). `data` is the subscription.",
};

pub const SUBSCRIPTION_UPDATED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "updated",
    description: "A subscription's terms changed (amount, interval, source, plan, parameters). \
                  `data` is the subscription.",
};

pub const SUBSCRIPTION_ACTIVATED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "activated",
    description: "A pending or suspended subscription became active. `data` is the \
                  subscription.",
};

pub const SUBSCRIPTION_SUSPENDED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "suspended",
    description: "A subscription was suspended, or its suspension changed. `data` is the \
                  subscription with `suspension_start` and `suspension_end`.",
};

pub const SUBSCRIPTION_CANCELLED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "cancelled",
    description: "A subscription was cancelled: by a caller, or by dunning after too many \
                  failed invoices. `data` is the subscription.",
};

pub const SUBSCRIPTION_ENDED: EventType = EventType {
    domain: "subscriptions",
    object: "subscription",
    action: "ended",
    description: "A subscription reached its `planned_end`. `data` is the subscription.",
};

pub const INVOICE_CREATED: EventType = EventType {
    domain: "subscriptions",
    object: "invoice",
    action: "created",
    description: "An invoice was made for a subscription's charge date, or by hand. `data` is the invoice.",
};

pub const INVOICE_PAID: EventType = EventType {
    domain: "subscriptions",
    object: "invoice",
    action: "paid",
    description: "An invoice was paid by a charge, or closed as paid by hand. `data` is the invoice.",
};

pub const INVOICE_CANCELLED: EventType = EventType {
    domain: "subscriptions",
    object: "invoice",
    action: "cancelled",
    description: "An invoice was given up after its last retry failed (`status_reason: failed`), or closed as cancelled by hand. `data` is the invoice.",
};

pub const INVOICE_UPCOMING: EventType = EventType {
    domain: "subscriptions",
    object: "invoice",
    action: "upcoming",
    description: "A subscription will be charged in its plan's `notify_before_charge_days`. `data` is the subscription with `upcoming_due_date`; the object is the subscription.",
};

pub const CHARGE_ATTEMPT_CREATED: EventType = EventType {
    domain: "subscriptions",
    object: "charge_attempt",
    action: "created",
    description: "A charge attempt was started; payments charges the subscription's payment source. `data` is the attempt with its invoice and subscription.",
};

pub const CHARGE_ATTEMPT_SUCCEEDED: EventType = EventType {
    domain: "subscriptions",
    object: "charge_attempt",
    action: "succeeded",
    description: "A charge attempt's payment succeeded. `data` is the attempt with `payment_uuid`.",
};

pub const CHARGE_ATTEMPT_FAILED: EventType = EventType {
    domain: "subscriptions",
    object: "charge_attempt",
    action: "failed",
    description: "A charge attempt's payment failed; `data.status_reason` says why, the invoice says what follows, and `data.notify_supporter` is the plan's `notify_on_failed_attempt`.",
};

pub const WEBHOOK_ENDPOINT_DISABLED: EventType = EventType {
    domain: "notifications",
    object: "webhook_endpoint",
    action: "disabled",
    description: "Coffer stopped delivering to a webhook endpoint: it answered 410 Gone, or every delivery to it failed for five days. `data` is the endpoint in its list form, whose `disabled_reason` says which; a PATCH with `enabled: true` turns it back on.",
};

pub const ONBOARDING_PROCESS_CREATED: EventType = EventType {
    domain: "onboarding",
    object: "onboarding_process",
    action: "created",
    description: "A partner started an onboarding process. `data` is the process record \
                  without its token.",
};

pub const ONBOARDING_PROCESS_COMPLETED: EventType = EventType {
    domain: "onboarding",
    object: "onboarding_process",
    action: "completed",
    description: "An onboarding process was executed or connected: `data` is the process \
                  record without its token, whose `results` name the organisation, accounts \
                  and user.",
};

pub const PARTNER_INTEGRATION_CREATED: EventType = EventType {
    domain: "onboarding",
    object: "partner_integration",
    action: "created",
    description: "A partner was given access to an organisation. `data` is the integration.",
};

pub const PARTNER_INTEGRATION_DISABLED: EventType = EventType {
    domain: "onboarding",
    object: "partner_integration",
    action: "disabled",
    description: "A partner's access to an organisation ended. `data` is the integration.",
};

pub const PAYOUT_CREATED: EventType = EventType {
    domain: "payment_gateway",
    object: "payout",
    action: "created",
    description: "A provider paid out to an account's bank: the test provider its succeeded \
                  card, TWINT and PayPal payments less fees and refunds, or Stripe its \
                  balance (`payout.paid`). `data` is the payout in its list form, whose \
                  `reference` the bank shows on the credit.",
};

pub const RECONCILIATION_REPORT_CREATED: EventType = EventType {
    domain: "reconciliation",
    object: "reconciliation_report",
    action: "created",
    description: "A bank file was read: processed, failed or found a duplicate. `data` is \
                  the report without its entries.",
};

pub const PAYOUT_MATCHED: EventType = EventType {
    domain: "reconciliation",
    object: "payout",
    action: "matched",
    description: "A statement's credit was matched with a payout. `data` holds `payout_uuid`, \
                  `value_date`, `amount` and `report_uuid`; payments marks the payout matched \
                  and dates its payments.",
};

pub const DIRECT_DEBIT_RECEIVED: EventType = EventType {
    domain: "reconciliation",
    object: "direct_debit",
    action: "received",
    description: "A notification showed a direct debit collected. `data` holds `account_uuid`, \
                  `amount`, `value_date`, `end_to_end_id`, `mandate_reference`, the `debtor` \
                  and `report_uuid`; payments settles the pending payment it names or records \
                  a new succeeded one.",
};

pub const DIRECT_DEBIT_RETURNED: EventType = EventType {
    domain: "reconciliation",
    object: "direct_debit",
    action: "returned",
    description: "A notification showed a direct debit returned or reversed. `data` is as for \
                  `direct_debit.received` with `reason` (the ISO code, such as AC06 or MD06); \
                  payments marks the payment failed with it.",
};

pub const WIRE_TRANSFER_RECEIVED: EventType = EventType {
    domain: "reconciliation",
    object: "wire_transfer",
    action: "received",
    description: "A statement or notification showed a credit with a valid creditor reference \
                  (ISO 11649, `RF…`) or QR reference. `data` holds `transfer_uuid` (the same \
                  for the same credit in any file), `organisation_uuid`, `account_uuid`, \
                  `amount`, `value_date`, `reference`, `reference_type` (`creditor_reference` \
                  or `qr_reference`), the `debtor` and `report_uuid`; payments records a \
                  succeeded `bank_transfer` payment under `transfer_uuid`, once.",
};

/// The whole catalogue, in the order docs/events.md lists it.
pub const CATALOGUE: &[EventType] = &[
    ORGANISATION_CREATED,
    ORGANISATION_UPDATED,
    ACCOUNT_CREATED,
    ACCOUNT_UPDATED,
    SUPPORTER_CREATED,
    SUPPORTER_UPDATED,
    PAYMENT_SUCCEEDED,
    PAYMENT_FAILED,
    PAYMENT_CANCELLED,
    REFUND_SUCCEEDED,
    DISPUTE_OPENED,
    DISPUTE_UPDATED,
    DISPUTE_CLOSED,
    PAYMENT_SOURCE_CREATED,
    PAYMENT_SOURCE_FAILED,
    SUBSCRIPTION_CREATED,
    SUBSCRIPTION_UPDATED,
    SUBSCRIPTION_ACTIVATED,
    SUBSCRIPTION_SUSPENDED,
    SUBSCRIPTION_CANCELLED,
    SUBSCRIPTION_ENDED,
    INVOICE_CREATED,
    INVOICE_PAID,
    INVOICE_CANCELLED,
    INVOICE_UPCOMING,
    CHARGE_ATTEMPT_CREATED,
    CHARGE_ATTEMPT_SUCCEEDED,
    CHARGE_ATTEMPT_FAILED,
    WEBHOOK_ENDPOINT_DISABLED,
    ONBOARDING_PROCESS_CREATED,
    ONBOARDING_PROCESS_COMPLETED,
    PARTNER_INTEGRATION_CREATED,
    PARTNER_INTEGRATION_DISABLED,
    PAYOUT_CREATED,
    RECONCILIATION_REPORT_CREATED,
    PAYOUT_MATCHED,
    DIRECT_DEBIT_RECEIVED,
    DIRECT_DEBIT_RETURNED,
    WIRE_TRANSFER_RECEIVED,
];

/// Every domain of the catalogue once, in its order: the topics a consumer of every
/// event reads.
pub fn domains() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for kind in CATALOGUE {
        if !out.contains(&kind.domain) {
            out.push(kind.domain);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_pattern() {
        assert_eq!(
            ACCOUNT_UPDATED.name("svc"),
            "svc.event.identity.account.updated"
        );
        assert_eq!(ACCOUNT_UPDATED.topic("svc"), "svc.events.identity");
    }

    #[test]
    fn any_action_reads_every_catalogued_event_of_the_same_object() {
        assert!(SUBSCRIPTION_CREATED.any_action("svc.event.subscriptions.subscription.activated"));
        assert!(SUBSCRIPTION_CREATED.any_action(&SUBSCRIPTION_UPDATED.name("svc")));
        // Another object of the same domain, and an action the catalogue does not know.
        assert!(!SUBSCRIPTION_CREATED.any_action("svc.event.subscriptions.invoice.upcoming"));
        assert!(!SUBSCRIPTION_CREATED.any_action("svc.event.subscriptions.subscription.exploded"));
        assert!(!ACCOUNT_CREATED.any_action(&ORGANISATION_CREATED.name("svc")));
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<String> = CATALOGUE.iter().map(|k| k.name("coffer")).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
    }
}
