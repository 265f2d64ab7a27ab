//! Coffer's test provider: answers like a real one, decided by the test card numbers
//! (docs/payments.md lists them).

use super::{ChargeOutcome, ChargeRequest, Connector, Instrument};

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
}
