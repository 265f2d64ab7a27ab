//! A subscription's status, as kept and as shown (`subscription_status`).

use crate::text_enum::text_enum;

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
}
