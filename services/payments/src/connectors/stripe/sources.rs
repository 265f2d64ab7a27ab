//! Payment sources through Stripe: an instrument kept as a Customer's PaymentMethod through
//! an off-session SetupIntent, and its charges without the donor, in two steps like every
//! charge (the intent recorded before it is confirmed `off_session`).

use super::client::StripeError;
use super::connector::{Donor, StripeConnector, answered, unknown};
use super::mapping::{self, Refusal};
use super::objects::SetupStatus;
use crate::shared::connector::{
    ChargeOutcome, ConnectorError, Prepared, StoreOutcome, StoredCharge,
};
use crate::shared::method::Instrument;

impl StripeConnector {
    /// Keeps `method` (of `method_type`) under a new Customer through a SetupIntent, for
    /// charges without the payer: the source's reference, or why it was not kept.
    async fn keep(
        &self,
        key: &str,
        method_type: &str,
        method: &str,
    ) -> Result<StoreOutcome, ConnectorError> {
        let customer = self
            .client
            .create_customer(key, &format!("coffer-{key}-customer"))
            .await
            .map_err(unknown)?;
        let setup = self
            .client
            .create_setup(
                &customer.id,
                method_type,
                key,
                &format!("coffer-{key}-setup"),
            )
            .await
            .map_err(unknown)?;
        // Stripe requires a debit's mandate; a test server refuses it (test_server.rs).
        let mandate = method_type == "sepa_debit" && !self.test_server;
        let confirmed = self
            .client
            .confirm_setup(
                &setup.id,
                method,
                mandate,
                &format!("coffer-{key}-setup-confirm"),
            )
            .await;
        let reference = mapping::kept_reference(method_type, &customer.id, method);
        match confirmed {
            Ok(setup) if setup.status == SetupStatus::RequiresAction => {
                // The payer's bank asks them to approve (3-D Secure), and Coffer has no page
                // for keeping a card yet: closed, and not kept.
                self.client
                    .cancel_setup(&setup.id, &format!("coffer-{key}-setup-cancel"))
                    .await
                    .map_err(unknown)?;
                Ok(StoreOutcome::Failed {
                    reason: "authentication_required".into(),
                })
            }
            Ok(setup) => Ok(mapping::setup_outcome(&setup, reference)),
            Err(StripeError::Refused { status, error }) => match mapping::refusal(status, &error) {
                Refusal::Declined(reason) | Refusal::Rejected(reason) => {
                    Ok(StoreOutcome::Failed { reason })
                }
                Refusal::Unknown => Err(unknown(StripeError::Refused { status, error })),
            },
            Err(e) => Err(unknown(e)),
        }
    }

    /// The intent of a charge of a kept method (`Connector::prepare_stored`).
    pub(super) async fn prepare_source_charge(
        &self,
        charge: &StoredCharge<'_>,
    ) -> Result<Prepared, ConnectorError> {
        let Some(kept) = mapping::read_reference(charge.reference) else {
            return Ok(answered(ChargeOutcome::Failed {
                provider_payment_id: String::new(),
                reason: "payment_source_unknown".into(),
            }));
        };
        self.prepare_intent(
            charge.key,
            charge.amount,
            kept.method_type,
            Some(kept.method),
            Some(kept.customer),
        )
        .await
    }

    /// The charge of a kept method, the donor away (`Connector::charge_stored`).
    pub(super) async fn charge_source(
        &self,
        charge: StoredCharge<'_>,
    ) -> Result<ChargeOutcome, ConnectorError> {
        let Some(id) = charge.prepared else {
            return Err(ConnectorError::Unreachable(
                "no PaymentIntent was prepared for this charge".into(),
            ));
        };
        let key = format!("coffer-{}-confirm", charge.key);
        // Without the payer: Stripe takes `off_session` with the confirmation; a test
        // server refuses it there (test_server.rs).
        let confirmed = self
            .client
            .confirm_intent(id, &key, !self.test_server)
            .await;
        self.confirmed(charge.key, id, confirmed, Donor::Away).await
    }

    /// Keeps `instrument` as a payment source (`Connector::store_instrument`).
    pub(super) async fn keep_instrument(
        &self,
        instrument: &Instrument,
        key: &str,
    ) -> Result<StoreOutcome, ConnectorError> {
        let made = match instrument {
            Instrument::Card(card) => self.card_method(key, card).await.map(|m| ("card", m)),
            Instrument::SepaDirectDebit(debit) => self
                .debit_method(key, debit)
                .await
                .map(|m| ("sepa_debit", m)),
            // Refused before anything was called (`refuses`).
            Instrument::DonorCard | Instrument::Wallet => {
                return Ok(StoreOutcome::Failed {
                    reason: "method_not_supported".into(),
                });
            }
        };
        match made {
            Ok((method_type, method)) => self.keep(key, method_type, &method).await,
            Err(StripeError::Refused { status, error }) => match mapping::refusal(status, &error) {
                Refusal::Declined(reason) | Refusal::Rejected(reason) => {
                    Ok(StoreOutcome::Failed { reason })
                }
                Refusal::Unknown => Err(unknown(StripeError::Refused { status, error })),
            },
            Err(e) => Err(unknown(e)),
        }
    }
}
