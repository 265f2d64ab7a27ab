//! The statuses of an invoice and of a charge attempt, and why an invoice is as it is, as
//! kept and as shown.

use coffer_model::text_enum;

text_enum! {
    pub enum InvoiceStatus {
        Open => "open",
        Paid => "paid",
        Cancelled => "cancelled",
    }
}

text_enum! {
    /// Why an invoice is in its status: open and waiting for a charge, paid by one, given up
    /// after failed ones, or closed by hand.
    pub enum InvoiceReason {
        Pending => "pending",
        Paid => "paid",
        Failed => "failed",
        Manual => "manual",
    }
}

text_enum! {
    /// Pending until payments answers.
    pub enum AttemptStatus {
        Pending => "pending",
        Succeeded => "succeeded",
        Failed => "failed",
    }
}
