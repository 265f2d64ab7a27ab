//! The statuses of an invoice and of a charge attempt, as kept and as shown.

use coffer_model::text_enum;

text_enum! {
    pub enum InvoiceStatus {
        Open => "open",
        Paid => "paid",
        Cancelled => "cancelled",
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
