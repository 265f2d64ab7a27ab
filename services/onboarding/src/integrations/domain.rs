//! An integration's states, as kept and as shown.

use coffer_model::text_enum;

text_enum! {
    /// Enabled when a process completes; disabled by the partner, and then for good.
    pub enum IntegrationStatus {
        Enabled => "enabled",
        Disabled => "disabled",
    }
}
