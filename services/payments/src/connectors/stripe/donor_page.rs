//! Stripe's part in Coffer's payment page (payment_page/): what the page needs to load
//! Stripe's script under its policy and finish one PaymentIntent, and the card a donor
//! entered there, given to the payment's intent.

use super::client::StripeError;
use super::connector::{StripeConnector, unknown};
use super::mapping::{self, Refusal};
use super::objects::{IntentStatus, PaymentIntent};
use super::test_server;
use crate::shared::connector::{ConnectorError, DonorPage, DonorStep};

impl StripeConnector {
    /// The PaymentMethod of the card behind `token`.
    async fn method_of_token(&self, key: &str, token: &str) -> Result<String, StripeError> {
        if self.test_server {
            return test_server::card_of_token(&self.client, token).await;
        }
        let method = self
            .client
            .card_method_from_token(token, &format!("coffer-{key}-method-{token}"))
            .await?;
        Ok(method.id)
    }

    /// Charges `prepared` with the card behind `token` (`Connector::give_card`).
    pub(super) async fn card_from_page(
        &self,
        key: &str,
        prepared: &str,
        token: &str,
    ) -> Result<(), ConnectorError> {
        let intent = self.client.intent(prepared).await.map_err(unknown)?;
        if !awaits_card(&intent) {
            // Given already (another tab, a second press), or ended: left as it is.
            return Ok(());
        }
        let method = match self.method_of_token(key, token).await {
            Ok(method) => method,
            Err(e) => return refused_or_unknown(e, "the card's token"),
        };
        // One confirmation per payment, carrying the card: under the payment's key, a
        // second card sent meanwhile is refused by Stripe rather than charged, and an
        // answer lost on the way is the same confirmation asked again.
        let confirmed = if self.test_server {
            test_server::confirm_with(&self.client, key, prepared, &method).await
        } else {
            self.client
                .confirm_with_method(prepared, &method, &format!("coffer-{key}-confirm"))
                .await
        };
        match confirmed {
            Ok(_) => Ok(()),
            // A decline is kept on the intent (`last_payment_error`), which the donor's
            // return reads, as any other outcome.
            Err(e) => refused_or_unknown(e, "the confirmation with the donor's card"),
        }
    }

    /// What the page needs to finish `prepared` (`Connector::donor_page`).
    pub(super) async fn page_of(
        &self,
        prepared: &str,
    ) -> Result<Option<DonorPage>, ConnectorError> {
        let Some(page) = &self.page else {
            return Ok(None);
        };
        let (intent, client_secret) = self
            .client
            .intent_with_secret(prepared)
            .await
            .map_err(unknown)?;
        // The client secret goes to the page only while the donor has a step there: a
        // declined or decided intent is no one's to try again with another card.
        let step = if awaits_card(&intent) {
            DonorStep::EnterCard
        } else if intent.status == IntentStatus::RequiresAction {
            DonorStep::Authenticate
        } else {
            return Ok(None);
        };
        let sources = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        // Stripe's script loads from js.stripe.com, frames the bank's challenge from
        // there and hooks.stripe.com, and calls api.stripe.com, whatever address Coffer
        // itself reaches the API at; a test server (localstripe) serves all of it.
        let (scripts, frames, connects) = if page.script.starts_with(STRIPE_SCRIPT_ORIGIN) {
            (
                sources(&[STRIPE_SCRIPT_ORIGIN, "https://*.js.stripe.com"]),
                sources(&[
                    STRIPE_SCRIPT_ORIGIN,
                    "https://*.js.stripe.com",
                    "https://hooks.stripe.com",
                ]),
                sources(&["https://api.stripe.com"]),
            )
        } else {
            let test_server = vec![origin_of(&page.script)];
            (test_server.clone(), test_server.clone(), test_server)
        };
        Ok(Some(DonorPage {
            step,
            script: page.script.clone(),
            script_sources: scripts,
            frame_sources: frames,
            connect_sources: connects,
            publishable_key: page.publishable_key.clone(),
            client_secret,
        }))
    }
}

/// A refusal Stripe answered (a declined card, a token it does not take) as done: the
/// intent says what became of it, and the donor's return reads it. One that leaves the
/// outcome unknown (5xx, 429, a key in use) is the caller's error.
fn refused_or_unknown(e: StripeError, what: &str) -> Result<(), ConnectorError> {
    match e {
        StripeError::Refused { status, error }
            if !matches!(mapping::refusal(status, &error), Refusal::Unknown) =>
        {
            tracing::warn!(status, code = ?error.code, "Stripe refused {what}");
            Ok(())
        }
        other => Err(unknown(other)),
    }
}

/// Whether an intent waits for the donor's card: made without a payment method, and never
/// declined (a declined one has `last_payment_error`, and ends the payment).
fn awaits_card(intent: &PaymentIntent) -> bool {
    intent.status == IntentStatus::RequiresPaymentMethod && intent.last_payment_error.is_none()
}

/// Where Stripe's own browser script is served from.
pub const STRIPE_SCRIPT_ORIGIN: &str = "https://js.stripe.com";

/// The scheme, host and port of `url`, as a Content-Security-Policy names a source.
fn origin_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or_default();
    let scheme = url.split_once("://").map_or("https", |(s, _)| s);
    format!("{scheme}://{host}")
}
