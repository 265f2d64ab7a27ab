//! A subscription's status, as kept and as shown (`subscription_status`).

use coffer_model::text_enum;

text_enum! {
    pub enum SubscriptionStatus {
        Pending => "pending",
        Active => "active",
        Suspended => "suspended",
        Cancelled => "cancelled",
        Ended => "ended",
    }
}

impl SubscriptionStatus {
    /// Charge dates come (a suspended one skips those inside its suspension).
    pub fn is_scheduled(self) -> bool {
        matches!(self, Self::Active | Self::Suspended)
    }

    /// Nothing more happens to it.
    pub fn is_over(self) -> bool {
        matches!(self, Self::Cancelled | Self::Ended)
    }

    /// Takes new invoices, by hand too: not once it is over.
    pub fn takes_invoices(self) -> bool {
        !self.is_over()
    }

    /// Its invoices may be charged, by hand or by dunning: not once it is cancelled (SPEC.md:
    /// no further charge attempts). An ended one's open invoices are still collected: they
    /// fell due while it ran.
    pub fn takes_charge_attempts(self) -> bool {
        self != Self::Cancelled
    }
}

#[cfg(test)]
mod tests {
    use super::SubscriptionStatus;

    #[test]
    fn every_status_reads_back_from_its_text_and_nothing_else_does() {
        use SubscriptionStatus::*;
        for status in [Pending, Active, Suspended, Cancelled, Ended] {
            assert_eq!(SubscriptionStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(serde_json::Value::from(status.as_str()))
            );
        }
        assert_eq!(SubscriptionStatus::parse("Active"), None);
    }
}
