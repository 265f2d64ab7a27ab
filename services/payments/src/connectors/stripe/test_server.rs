//! Where a test server of Stripe's API (localstripe, which `make test` runs) cannot do what
//! Stripe does, said in one place. The connector takes these ways only for a test account
//! whose API is plain http on this machine (`payments.stripe_api`, which allows plain http
//! only to loopback); a live account always goes Stripe's own way, with every field.
//!
//! - A card the donor entered on the payment page arrives as a token (Stripe's browser
//!   script's `createToken`, the one way localstripe's script takes card data). Stripe makes
//!   a PaymentMethod of it (`card[token]`); localstripe makes a PaymentMethod only from a
//!   card's number, but lets the card its token made stand for one. It also answers a
//!   confirmation carrying a payment method with 500, so the card is given to the intent
//!   first and the intent confirmed after (two calls where Stripe takes one, keyed by the
//!   card, so two cards given at once are not kept apart as Stripe keeps them).
//! - A SEPA direct debit is confirmed with the mandate the merchant took
//!   (`mandate_data`), which Stripe requires; localstripe refuses the parameter, so a test
//!   server's debits are confirmed without it, and its SetupIntents too.
//! - A charge of a payment source is confirmed `off_session` (the payer is not there);
//!   localstripe takes `off_session` only when a PaymentIntent is made and confirmed in one
//!   call, which Coffer never does, so a test server's are confirmed without it.

use super::client::{StripeClient, StripeError};
use super::objects::PaymentIntent;

/// Whether the API at `api` is a test server on this machine, for an account of `live`
/// mode: never for a live account.
pub fn is_test_server(api: &str, live: bool) -> bool {
    !live && api.starts_with("http://")
}

/// The card a token made, standing for its PaymentMethod.
pub async fn card_of_token(client: &StripeClient, token: &str) -> Result<String, StripeError> {
    let found = client.token(token).await?;
    found
        .card
        .map(|card| card.id)
        .ok_or_else(|| StripeError::Unreadable("the token names no card".into()))
}

/// Gives the intent `id` the payment method `method` and confirms it, in two calls.
pub async fn confirm_with(
    client: &StripeClient,
    key: &str,
    id: &str,
    method: &str,
) -> Result<PaymentIntent, StripeError> {
    client
        .set_payment_method(id, method, &format!("coffer-{key}-card-{method}"))
        .await?;
    client
        .confirm_intent(id, &format!("coffer-{key}-confirm-{method}"), false)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_account_never_takes_the_test_servers_ways() {
        assert!(is_test_server("http://127.0.0.1:8420", false));
        assert!(!is_test_server("http://127.0.0.1:8420", true));
        assert!(!is_test_server("https://api.stripe.com", false));
    }
}
