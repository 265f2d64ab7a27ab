//! What a connector account's payment page needs, named apart so that the connector and
//! its page's part (donor_page.rs) both read it.

/// What the donor's payment page needs of a connector account: where Coffer serves it, and
/// the key Stripe's script is opened with there.
#[derive(Clone)]
pub struct PageAccess {
    /// Coffer's public address (`payments.public_base_url`).
    pub base_url: String,
    pub publishable_key: String,
    /// Stripe's browser script, and the API it calls (for the page's CSP).
    pub script: String,
    pub api: String,
}

impl PageAccess {
    /// The page of the payment `uuid`: its `action.url`.
    pub fn url_of(&self, uuid: &str) -> String {
        format!("{}/pay/{uuid}", self.base_url.trim_end_matches('/'))
    }
}
