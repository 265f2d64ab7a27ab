//! Stripe's HTTP API, the calls Coffer makes: form-encoded requests with the account's
//! secret key, `Stripe-Version` pinned and an `Idempotency-Key` on every POST, within a
//! timeout. It decides nothing: what an answer means for a payment is mapping.rs's.
//!
//! Every POST carries a key derived from Coffer's own object (`coffer-<payment>-create`),
//! which Stripe honours for 24 hours: a retried create answers the first one's object. A
//! server that ignores the key (localstripe) makes a second object instead, which is why
//! the connector records an intent's id before it confirms it and looks an unheard create
//! up by its metadata rather than trusting a retry.

use std::time::Duration;

use reqwest::{Client, RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;

use super::objects::{
    Customer, ErrorAnswer, ErrorBody, List, PaymentIntent, PaymentMethod, Refund, SetupIntent,
    Token,
};

/// The API version Coffer's requests are written against and its objects read with.
pub const STRIPE_VERSION: &str = "2024-06-20";
/// The metadata key naming the Coffer payment a PaymentIntent charges.
pub const PAYMENT_METADATA: &str = "coffer_payment_uuid";
/// The metadata key naming the Coffer payment source a Customer and SetupIntent keep.
pub const SOURCE_METADATA: &str = "coffer_payment_source_uuid";
/// The metadata key naming the Coffer refund a Refund gives back.
pub const REFUND_METADATA: &str = "coffer_refund_uuid";
/// Stripe pages lists by 100 at most.
const PAGE: usize = 100;

/// A call that failed. `Refused` is an answer (Stripe said no, and why); the others leave
/// unknown whether a POST took effect.
#[derive(Debug, thiserror::Error)]
pub enum StripeError {
    // Stripe's code only, never its message, which may quote what was sent.
    #[error("Stripe answered {status}: {}", .error.code.as_deref().or(.error.kind.as_deref()).unwrap_or("no code"))]
    Refused { status: u16, error: ErrorBody },
    #[error("Stripe did not answer in time")]
    Timeout,
    #[error("Stripe could not be reached: {0}")]
    Unreachable(String),
    /// A 2xx whose body is not the object asked for: the call may have taken effect.
    #[error("Stripe's answer could not be read: {0}")]
    Unreadable(String),
}

/// Card details for one PaymentMethod; they go to Stripe and nowhere else.
pub struct CardDetails<'a> {
    pub number: &'a str,
    pub exp_month: u32,
    pub exp_year: i32,
    pub cvc: Option<&'a str>,
    pub cardholder: Option<&'a str>,
}

/// A bank account for one SEPA direct debit PaymentMethod; it goes to Stripe and nowhere
/// else.
pub struct DebitDetails<'a> {
    pub iban: &'a str,
    pub holder: &'a str,
    pub email: &'a str,
}

/// A PaymentIntent to create, unconfirmed.
pub struct NewIntent<'a> {
    /// Stripe's smallest unit of `currency` (mapping::stripe_amount).
    pub amount: i64,
    /// Lower case, as Stripe writes it.
    pub currency: &'a str,
    /// None when the donor gives it later, on the payment page.
    pub payment_method: Option<&'a str>,
    pub payment_method_type: &'a str,
    pub customer: Option<&'a str>,
    pub payment_uuid: &'a str,
}

#[derive(Clone)]
pub struct StripeClient {
    http: Client,
    base: String,
    secret_key: String,
}

impl StripeClient {
    /// A client of the API at `base` (`https://api.stripe.com`, or a test server).
    pub fn new(base: &str, secret_key: &str, timeout: Duration) -> Result<Self, StripeError> {
        let http = Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .build()
            .map_err(|e| StripeError::Unreachable(e.to_string()))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
        })
    }

    /// The API's address.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// A card as a PaymentMethod (test mode, or a live account Stripe allows raw card data).
    pub async fn create_card_method(
        &self,
        card: &CardDetails<'_>,
        key: &str,
    ) -> Result<PaymentMethod, StripeError> {
        let mut form = vec![
            ("type".to_owned(), "card".to_owned()),
            ("card[number]".to_owned(), card.number.to_owned()),
            ("card[exp_month]".to_owned(), card.exp_month.to_string()),
            ("card[exp_year]".to_owned(), card.exp_year.to_string()),
        ];
        if let Some(cvc) = card.cvc {
            form.push(("card[cvc]".to_owned(), cvc.to_owned()));
        }
        if let Some(name) = card.cardholder {
            form.push(("billing_details[name]".to_owned(), name.to_owned()));
        }
        self.post("/v1/payment_methods", &form, key).await
    }

    /// Creates the PaymentIntent unconfirmed, with metadata naming Coffer's payment.
    pub async fn create_intent(
        &self,
        intent: &NewIntent<'_>,
        key: &str,
    ) -> Result<PaymentIntent, StripeError> {
        let mut form = vec![
            ("amount".to_owned(), intent.amount.to_string()),
            ("currency".to_owned(), intent.currency.to_owned()),
            (
                "payment_method_types[]".to_owned(),
                intent.payment_method_type.to_owned(),
            ),
            (
                format!("metadata[{PAYMENT_METADATA}]"),
                intent.payment_uuid.to_owned(),
            ),
        ];
        if let Some(method) = intent.payment_method {
            form.push(("payment_method".to_owned(), method.to_owned()));
        }
        if let Some(customer) = intent.customer {
            form.push(("customer".to_owned(), customer.to_owned()));
        }
        self.post("/v1/payment_intents", &form, key).await
    }

    /// A bank account to collect SEPA direct debits from, with its holder and the e-mail
    /// Stripe tells of each collection.
    pub async fn create_debit_method(
        &self,
        debit: &DebitDetails<'_>,
        key: &str,
    ) -> Result<PaymentMethod, StripeError> {
        let form = [
            ("type".to_owned(), "sepa_debit".to_owned()),
            ("sepa_debit[iban]".to_owned(), debit.iban.to_owned()),
            ("billing_details[name]".to_owned(), debit.holder.to_owned()),
            ("billing_details[email]".to_owned(), debit.email.to_owned()),
        ];
        self.post("/v1/payment_methods", &form, key).await
    }

    /// Confirms a direct debit's PaymentIntent, with the mandate the merchant took from the
    /// payer (`offline`: Coffer is called by the merchant, not from the payer's browser, so
    /// it has no address or browser of theirs to give); without one only where the test
    /// server refuses it (test_server.rs).
    pub async fn confirm_debit(
        &self,
        id: &str,
        key: &str,
        with_mandate: bool,
    ) -> Result<PaymentIntent, StripeError> {
        let form: &[(String, String)] = if with_mandate {
            &[(
                "mandate_data[customer_acceptance][type]".to_owned(),
                "offline".to_owned(),
            )]
        } else {
            &[]
        };
        self.post(&format!("/v1/payment_intents/{id}/confirm"), form, key)
            .await
    }

    /// The card a donor entered into Stripe's own fields, which Stripe's browser script
    /// made a token of, as a PaymentMethod.
    pub async fn card_method_from_token(
        &self,
        token: &str,
        key: &str,
    ) -> Result<PaymentMethod, StripeError> {
        let form = [
            ("type".to_owned(), "card".to_owned()),
            ("card[token]".to_owned(), token.to_owned()),
        ];
        self.post("/v1/payment_methods", &form, key).await
    }

    /// The Customer a payment source's method is kept under, named by the source.
    pub async fn create_customer(
        &self,
        source_uuid: &str,
        key: &str,
    ) -> Result<Customer, StripeError> {
        let form = [(
            format!("metadata[{SOURCE_METADATA}]"),
            source_uuid.to_owned(),
        )];
        self.post("/v1/customers", &form, key).await
    }

    /// A SetupIntent keeping `method` (of `method_type`) for `customer`, to be charged
    /// without the payer (`usage=off_session`).
    pub async fn create_setup(
        &self,
        customer: &str,
        method_type: &str,
        source_uuid: &str,
        key: &str,
    ) -> Result<SetupIntent, StripeError> {
        let form = [
            ("customer".to_owned(), customer.to_owned()),
            ("payment_method_types[]".to_owned(), method_type.to_owned()),
            ("usage".to_owned(), "off_session".to_owned()),
            (
                format!("metadata[{SOURCE_METADATA}]"),
                source_uuid.to_owned(),
            ),
        ];
        self.post("/v1/setup_intents", &form, key).await
    }

    /// Confirms a SetupIntent with `method`, with the merchant's mandate for a direct debit
    /// (as [`StripeClient::confirm_debit`]).
    pub async fn confirm_setup(
        &self,
        id: &str,
        method: &str,
        offline_mandate: bool,
        key: &str,
    ) -> Result<SetupIntent, StripeError> {
        let mut form = vec![("payment_method".to_owned(), method.to_owned())];
        if offline_mandate {
            form.push((
                "mandate_data[customer_acceptance][type]".to_owned(),
                "offline".to_owned(),
            ));
        }
        self.post(&format!("/v1/setup_intents/{id}/confirm"), &form, key)
            .await
    }

    pub async fn cancel_setup(&self, id: &str, key: &str) -> Result<SetupIntent, StripeError> {
        self.post(&format!("/v1/setup_intents/{id}/cancel"), &[], key)
            .await
    }

    pub async fn token(&self, id: &str) -> Result<Token, StripeError> {
        self.get(&format!("/v1/tokens/{id}"), &[]).await
    }

    /// Confirms an intent made without a payment method with the one it is to charge, in
    /// one call (the donor's card, given on the payment page).
    pub async fn confirm_with_method(
        &self,
        id: &str,
        method: &str,
        key: &str,
    ) -> Result<PaymentIntent, StripeError> {
        self.with_method(&format!("/v1/payment_intents/{id}/confirm"), method, key)
            .await
    }

    /// Gives an intent made without one the PaymentMethod it is to charge.
    pub async fn set_payment_method(
        &self,
        id: &str,
        method: &str,
        key: &str,
    ) -> Result<PaymentIntent, StripeError> {
        self.with_method(&format!("/v1/payment_intents/{id}"), method, key)
            .await
    }

    async fn with_method(
        &self,
        path: &str,
        method: &str,
        key: &str,
    ) -> Result<PaymentIntent, StripeError> {
        let form = [("payment_method".to_owned(), method.to_owned())];
        self.post(path, &form, key).await
    }

    /// Confirms a PaymentIntent with the PaymentMethod it was created with; `off_session`
    /// when the donor is not there (billing's charge attempts), which Stripe takes only
    /// with the confirmation.
    pub async fn confirm_intent(
        &self,
        id: &str,
        key: &str,
        off_session: bool,
    ) -> Result<PaymentIntent, StripeError> {
        let form: &[(String, String)] = if off_session {
            &[("off_session".to_owned(), "true".to_owned())]
        } else {
            &[]
        };
        self.post(&format!("/v1/payment_intents/{id}/confirm"), form, key)
            .await
    }

    pub async fn intent(&self, id: &str) -> Result<PaymentIntent, StripeError> {
        self.get(&format!("/v1/payment_intents/{id}"), &[]).await
    }

    /// The intent, with its client secret: with the publishable key that lets the donor's
    /// browser finish this one intent (3-D Secure). It goes to the donor's page only.
    pub async fn intent_with_secret(
        &self,
        id: &str,
    ) -> Result<(PaymentIntent, zeroize::Zeroizing<String>), StripeError> {
        // Not Debug: the secret must not reach a log line by way of a struct.
        #[derive(serde::Deserialize)]
        struct WithSecret {
            #[serde(flatten)]
            intent: PaymentIntent,
            client_secret: String,
        }
        let found: WithSecret = self.get(&format!("/v1/payment_intents/{id}"), &[]).await?;
        Ok((found.intent, zeroize::Zeroizing::new(found.client_secret)))
    }

    pub async fn cancel_intent(&self, id: &str, key: &str) -> Result<PaymentIntent, StripeError> {
        self.post(&format!("/v1/payment_intents/{id}/cancel"), &[], key)
            .await
    }

    /// The PaymentIntents whose metadata name `payment_uuid`, newest first: what a create
    /// Coffer never heard the answer to left behind. Reads at most `pages` pages.
    pub async fn intents_of_payment(
        &self,
        payment_uuid: &str,
        pages: usize,
    ) -> Result<Vec<PaymentIntent>, StripeError> {
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..pages {
            let mut query = vec![("limit".to_owned(), PAGE.to_string())];
            if let Some(last) = &after {
                query.push(("starting_after".to_owned(), last.clone()));
            }
            let page: List<PaymentIntent> = self.get("/v1/payment_intents", &query).await?;
            after = page.data.last().map(|i| i.id.clone());
            found.extend(page.data.into_iter().filter(|i| {
                i.metadata.get(PAYMENT_METADATA).map(String::as_str) == Some(payment_uuid)
            }));
            if !page.has_more || after.is_none() {
                break;
            }
        }
        Ok(found)
    }

    /// Gives back `amount` of a succeeded PaymentIntent, with metadata naming Coffer's
    /// refund.
    pub async fn refund(
        &self,
        intent_id: &str,
        amount: i64,
        refund_uuid: &str,
        key: &str,
    ) -> Result<Refund, StripeError> {
        let form = [
            ("payment_intent".to_owned(), intent_id.to_owned()),
            ("amount".to_owned(), amount.to_string()),
            (
                format!("metadata[{REFUND_METADATA}]"),
                refund_uuid.to_owned(),
            ),
        ];
        self.post("/v1/refunds", &form, key).await
    }

    /// The Refunds of a PaymentIntent whose metadata name `refund_uuid`: what a refund
    /// Coffer never heard the answer to left behind. Reads at most `pages` pages.
    pub async fn refunds_of(
        &self,
        intent_id: &str,
        refund_uuid: &str,
        pages: usize,
    ) -> Result<Vec<Refund>, StripeError> {
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..pages {
            let mut query = vec![
                ("payment_intent".to_owned(), intent_id.to_owned()),
                ("limit".to_owned(), PAGE.to_string()),
            ];
            if let Some(last) = &after {
                query.push(("starting_after".to_owned(), last.clone()));
            }
            let page: List<Refund> = self.get("/v1/refunds", &query).await?;
            after = page.data.last().map(|r| r.id.clone());
            found.extend(page.data.into_iter().filter(|r| {
                r.metadata.get(REFUND_METADATA).map(String::as_str) == Some(refund_uuid)
            }));
            if !page.has_more || after.is_none() {
                break;
            }
        }
        Ok(found)
    }

    async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        form: &[(String, String)],
        key: &str,
    ) -> Result<T, StripeError> {
        let request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Idempotency-Key", key)
            .form(form);
        self.send(request).await
    }

    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<T, StripeError> {
        let request = self.http.get(format!("{}{path}", self.base)).query(query);
        self.send(request).await
    }

    async fn send<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T, StripeError> {
        let answer = request
            .bearer_auth(&self.secret_key)
            .header("Stripe-Version", STRIPE_VERSION)
            .send()
            .await
            .map_err(unheard)?;
        let status = answer.status();
        let body = answer.bytes().await.map_err(unheard)?;
        if status.is_success() {
            return serde_json::from_slice(&body)
                .map_err(|e| StripeError::Unreadable(e.to_string()));
        }
        let error = serde_json::from_slice::<ErrorAnswer>(&body)
            .map(|a| a.error)
            .unwrap_or_default();
        Err(refused(status, error))
    }
}

fn refused(status: StatusCode, error: ErrorBody) -> StripeError {
    StripeError::Refused {
        status: status.as_u16(),
        error,
    }
}

/// A call that got no answer: the error names neither the request nor its body.
fn unheard(e: reqwest::Error) -> StripeError {
    if e.is_timeout() {
        StripeError::Timeout
    } else {
        StripeError::Unreachable(e.without_url().to_string())
    }
}
