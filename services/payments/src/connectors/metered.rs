//! A connector that counts and times its calls (metrics.rs): it wraps whichever connector
//! the registry opened, so every provider is measured the same way and no connector
//! measures itself. A call Coffer stopped waiting for (its connector timeout, which drops
//! the call) is counted `abandoned` as it is dropped.

use std::sync::Arc;
use std::time::Instant;

use coffer_model::money::Money;
use coffer_model::validation::FieldError;

use super::metrics::ConnectorMetrics;
use crate::shared::connector::{
    Call, ChargeOutcome, ChargeRequest, Charged, Connector, ConnectorError, DonorPage, Prepared,
    RefundOutcome, StoreOutcome, StoredCharge,
};
use crate::shared::method::Instrument;

pub struct Metered {
    inner: Arc<dyn Connector>,
    metrics: ConnectorMetrics,
}

impl Metered {
    pub fn new(inner: Arc<dyn Connector>, metrics: ConnectorMetrics) -> Self {
        Self { inner, metrics }
    }

    /// `call` named `name`, measured.
    fn measured<'a, T: Send + 'a>(
        &'a self,
        name: &'static str,
        call: Call<'a, T>,
        outcome: fn(&T) -> Option<&'static str>,
    ) -> Call<'a, T> {
        Box::pin(async move {
            let mut watch = Watch {
                metrics: &self.metrics,
                provider: self.inner.provider(),
                call: name,
                started: Instant::now(),
                result: None,
            };
            let answer = call.await;
            watch.result = Some(match &answer {
                Ok(value) => {
                    if let Some(outcome) = outcome(value) {
                        self.metrics
                            .outcomes
                            .with_label_values(&[watch.provider, outcome])
                            .inc();
                    }
                    "ok"
                }
                Err(ConnectorError::Timeout) => "timeout",
                Err(ConnectorError::Unreachable(_)) => "unreachable",
            });
            answer
        })
    }
}

/// Records a call when it ends, or when it is dropped unfinished.
struct Watch<'a> {
    metrics: &'a ConnectorMetrics,
    provider: &'static str,
    call: &'static str,
    started: Instant,
    result: Option<&'static str>,
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let result = self.result.unwrap_or("abandoned");
        self.metrics
            .calls
            .with_label_values(&[self.provider, self.call, result])
            .inc();
        self.metrics
            .duration
            .with_label_values(&[self.provider, self.call])
            .observe(self.started.elapsed().as_secs_f64());
    }
}

fn charge_outcome(outcome: &ChargeOutcome) -> Option<&'static str> {
    Some(match outcome {
        ChargeOutcome::Succeeded { .. } => "succeeded",
        ChargeOutcome::Failed { .. } => "failed",
        ChargeOutcome::Pending { .. } => "pending",
    })
}

fn none<T>(_: &T) -> Option<&'static str> {
    None
}

impl Connector for Metered {
    fn provider(&self) -> &'static str {
        self.inner.provider()
    }

    fn refuses(
        &self,
        amount: Option<Money>,
        instrument: &Instrument,
        keep: bool,
    ) -> Vec<FieldError> {
        self.inner.refuses(amount, instrument, keep)
    }

    fn own_debit_identifiers(&self) -> bool {
        self.inner.own_debit_identifiers()
    }

    fn prepare<'a>(&'a self, request: &'a ChargeRequest<'a>) -> Call<'a, Prepared> {
        self.measured(
            "prepare",
            self.inner.prepare(request),
            |prepared| match prepared {
                Prepared::Answered(charged) => charge_outcome(&charged.outcome),
                _ => None,
            },
        )
    }

    fn charge<'a>(&'a self, request: ChargeRequest<'a>) -> Call<'a, Charged> {
        self.measured("charge", self.inner.charge(request), |c| {
            charge_outcome(&c.outcome)
        })
    }

    fn prepare_stored<'a>(&'a self, charge: &'a StoredCharge<'a>) -> Call<'a, Prepared> {
        self.measured(
            "prepare_stored",
            self.inner.prepare_stored(charge),
            |prepared| match prepared {
                Prepared::Answered(charged) => charge_outcome(&charged.outcome),
                _ => None,
            },
        )
    }

    fn charge_stored<'a>(&'a self, charge: StoredCharge<'a>) -> Call<'a, ChargeOutcome> {
        let call = self.inner.charge_stored(charge);
        self.measured("charge_stored", call, charge_outcome)
    }

    fn store_instrument<'a>(
        &'a self,
        instrument: &'a Instrument,
        key: &'a str,
    ) -> Call<'a, StoreOutcome> {
        let call = self.inner.store_instrument(instrument, key);
        self.measured("store_instrument", call, none)
    }

    fn refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
        amount: Money,
    ) -> Call<'a, RefundOutcome> {
        let call = self.inner.refund(key, provider_payment_id, amount);
        self.measured("refund", call, none)
    }

    fn find_charge<'a>(
        &'a self,
        key: &'a str,
        prepared: Option<&'a str>,
        amount: Money,
    ) -> Call<'a, Option<Charged>> {
        let call = self.inner.find_charge(key, prepared, amount);
        self.measured("find_charge", call, |found| {
            found.as_ref().and_then(|c| charge_outcome(&c.outcome))
        })
    }

    fn find_refund<'a>(
        &'a self,
        key: &'a str,
        provider_payment_id: &'a str,
    ) -> Call<'a, Option<RefundOutcome>> {
        let call = self.inner.find_refund(key, provider_payment_id);
        self.measured("find_refund", call, none)
    }

    fn donor_page<'a>(&'a self, prepared: &'a str) -> Call<'a, Option<DonorPage>> {
        self.measured("donor_page", self.inner.donor_page(prepared), none)
    }

    fn give_card<'a>(&'a self, key: &'a str, prepared: &'a str, token: &'a str) -> Call<'a, ()> {
        self.measured(
            "give_card",
            self.inner.give_card(key, prepared, token),
            none,
        )
    }

    fn end_waiting<'a>(
        &'a self,
        key: &'a str,
        prepared: &'a str,
        give_up: bool,
    ) -> Call<'a, Option<ChargeOutcome>> {
        let call = self.inner.end_waiting(key, prepared, give_up);
        self.measured("end_waiting", call, |ended| {
            ended.as_ref().and_then(charge_outcome)
        })
    }

    fn committed(&self) {
        self.inner.committed();
    }
}
