//! Coffer's test provider: answers like a real one, decided by the test card numbers
//! (docs/payments.md lists them).

use coffer_model::money::Money;

use super::{ChargeOutcome, ChargeRequest, Connector, Instrument, StoreOutcome};

/// References of stored cards whose later charges always fail (test card 4000000000000341).
const FAILING: &str = "tok_fail_";

pub const PROVIDER: &str = "coffer_test";

pub struct TestPsp {
    /// Where the 3-D Secure page of this Coffer is served.
    pub base_url: String,
}

impl Connector for TestPsp {
    fn provider(&self) -> &'static str {
        PROVIDER
    }

    fn charge(&self, request: &ChargeRequest<'_>) -> ChargeOutcome {
        let provider_payment_id = format!("test_{}", request.payment_uuid.replace('-', ""));
        match request.instrument {
            Instrument::Card(card) => match card.number.as_str() {
                "4000000000000002" => ChargeOutcome::Failed {
                    provider_payment_id,
                    reason: "card_declined",
                },
                "4000000000009995" => ChargeOutcome::Failed {
                    provider_payment_id,
                    reason: "insufficient_funds",
                },
                "4000000000003220" => ChargeOutcome::Pending {
                    redirect: Some(format!(
                        "{}/test-psp/3ds/{}",
                        self.base_url, request.payment_uuid
                    )),
                    provider_payment_id,
                },
                _ => ChargeOutcome::Succeeded {
                    provider_payment_id,
                },
            },
            Instrument::SepaDirectDebit => ChargeOutcome::Pending {
                provider_payment_id,
                redirect: None,
            },
            Instrument::Wallet => ChargeOutcome::Pending {
                redirect: Some(format!(
                    "{}/test-psp/3ds/{}",
                    self.base_url, request.payment_uuid
                )),
                provider_payment_id,
            },
        }
    }

    fn store_instrument(&self, instrument: &Instrument, source_uuid: &str) -> StoreOutcome {
        let id = source_uuid.replace('-', "");
        let approval = format!("{}/test-psp/3ds/{source_uuid}", self.base_url);
        match instrument {
            Instrument::Card(card) => match card.number.as_str() {
                "4000000000000002" => StoreOutcome::Failed {
                    reason: "card_declined",
                },
                "4000000000009995" => StoreOutcome::Failed {
                    reason: "insufficient_funds",
                },
                "4000000000000341" => StoreOutcome::Active {
                    reference: format!("{FAILING}{id}"),
                },
                "4000000000003220" => StoreOutcome::Pending {
                    reference: format!("tok_{id}"),
                    redirect: approval,
                },
                _ => StoreOutcome::Active {
                    reference: format!("tok_{id}"),
                },
            },
            Instrument::SepaDirectDebit => StoreOutcome::Active {
                reference: format!("mandate_{id}"),
            },
            // The donor agrees to later charges at the wallet, as with TWINT and PayPal.
            Instrument::Wallet => StoreOutcome::Pending {
                reference: format!("agreement_{id}"),
                redirect: approval,
            },
        }
    }

    fn charge_stored(&self, reference: &str, payment_uuid: &str, _amount: Money) -> ChargeOutcome {
        let provider_payment_id = format!("test_{}", payment_uuid.replace('-', ""));
        if reference.starts_with(FAILING) {
            ChargeOutcome::Failed {
                provider_payment_id,
                reason: "card_declined",
            }
        } else if reference.starts_with("mandate_") {
            ChargeOutcome::Pending {
                provider_payment_id,
                redirect: None,
            }
        } else {
            ChargeOutcome::Succeeded {
                provider_payment_id,
            }
        }
    }
}
