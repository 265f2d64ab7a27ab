//! Coffer's test provider: answers like a real one, decided by the test card numbers
//! (docs/payments.md lists them), and keeps a book of every key it was asked about, so
//! asking again with a key answers as before and charges nothing more.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use coffer_model::clock::Clock;
use coffer_model::money::Money;
use coffer_model::validation::FieldError;
use coffer_store::{Batches, Store, StoreError};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::faults::{Fault, Faults};
use super::test_psp_ledger::{self as ledger, Entry};
use crate::shared::connector::{
    Call, ChargeOutcome, ChargeRequest, Charged, Connector, ConnectorError, RefundOutcome,
    StoreOutcome, StoredCharge, TEST_PROVIDER,
};
use crate::shared::method::Instrument;

/// References of stored cards whose later charges always fail (test card 4000000000000341).
const FAILING: &str = "tok_fail_";

pub struct TestPsp {
    /// Where the 3-D Secure page of this Coffer is served.
    pub base_url: String,
    /// Where the book is kept (payments' database, on connections of its own).
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub faults: Faults,
    /// First requests waiting to be written to the book together.
    book: Batches<Entry, Result<bool, ConnectorError>>,
}

/// Writes first requests to the book: in their own shared transactions that wait for no
/// flush on PostgreSQL (the provider costs what a remote one would, not a flush of Coffer's
/// database per charge), in one statement for all of them. True for each entry that was
/// the first under its key.
async fn write_book(store: Store, entries: Vec<Entry>) -> Vec<Result<bool, ConnectorError>> {
    let shared = Arc::new(entries);
    let written = Arc::clone(&shared);
    let recorded = store
        .write_unflushed(move |db| ledger::record_all(db, &written).map_err(StoreError::from))
        .await;
    match recorded {
        Ok(keys) => {
            let mut first: HashSet<String> = keys.into_iter().collect();
            shared
                .iter()
                .map(|e| Ok(first.remove(&e.idempotency_key)))
                .collect()
        }
        Err(e) => shared.iter().map(|_| Err(unreachable(&e))).collect(),
    }
}

/// How long a hanging provider hangs: longer than any caller waits.
const HANG: Duration = Duration::from_secs(3600);

fn unreachable(e: impl std::fmt::Display) -> ConnectorError {
    ConnectorError::Unreachable(e.to_string())
}

impl TestPsp {
    pub fn new(base_url: String, store: Store, clock: Arc<dyn Clock>, faults: Faults) -> Self {
        let writer = store.clone();
        let book = Batches::new(1, 64, move |entries: Vec<Entry>| {
            write_book(writer.clone(), entries)
        });
        Self {
            base_url,
            store,
            clock,
            faults,
            book,
        }
    }

    /// The answer under `key`: the one given before, or `decide`'s, written down first.
    async fn once<T>(
        &self,
        key: &str,
        kind: &str,
        decide: impl FnOnce() -> T,
    ) -> Result<T, ConnectorError>
    where
        T: Serialize + DeserializeOwned,
    {
        let fault = self.faults.get();
        if fault == Some(Fault::FailBeforeCall) {
            return Err(ConnectorError::Unreachable(
                "test fault before the call".into(),
            ));
        }
        let store = self.store.clone();
        // The first request under a key is the usual case: write its answer, and read the
        // book only when another got there first.
        let answer = decide();
        let entry = Entry {
            idempotency_key: key.to_owned(),
            kind: kind.to_owned(),
            outcome: serde_json::to_string(&answer).map_err(unreachable)?,
            requests: 1,
            created: self.clock.unix(),
        };
        // Written with the other first requests that arrive together, in one statement.
        let first = self
            .book
            .submit(entry)
            .await
            .unwrap_or_else(|| Err(unreachable("writing the book was cancelled")));
        let answer = if first? {
            answer
        } else {
            let id = key.to_owned();
            store
                .write_unflushed(move |db| ledger::asked_again(db, &id).map_err(StoreError::from))
                .await
                .map_err(unreachable)?;
            self.known(key)
                .await?
                .ok_or_else(|| unreachable("the key vanished"))?
        };
        match fault {
            Some(Fault::HangAfterCall) => {
                tokio::time::sleep(HANG).await;
                Err(ConnectorError::Timeout)
            }
            Some(Fault::AbortAfterCall) => std::process::abort(),
            _ => Ok(answer),
        }
    }

    async fn known<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ConnectorError> {
        if self.faults.get() == Some(Fault::FailBeforeCall) {
            return Err(ConnectorError::Unreachable(
                "test fault before the call".into(),
            ));
        }
        let id = key.to_owned();
        let entry = self
            .store
            .query(move |db| ledger::find(db, &id))
            .await
            .map_err(unreachable)?;
        entry
            .map(|e| serde_json::from_str(&e.outcome).map_err(unreachable))
            .transpose()
    }
}

impl Connector for TestPsp {
    fn provider(&self) -> &'static str {
        TEST_PROVIDER
    }

    /// The test provider has no page for a donor to enter a card on: its card payments
    /// carry the card.
    fn refuses(
        &self,
        _amount: Option<Money>,
        instrument: &Instrument,
        _keep: bool,
    ) -> Vec<FieldError> {
        matches!(instrument, Instrument::DonorCard)
            .then(|| FieldError::not_null("payment_information"))
            .into_iter()
            .collect()
    }

    fn charge<'a>(&'a self, request: ChargeRequest<'a>) -> Call<'a, Charged> {
        Box::pin(async move {
            let base = self.base_url.clone();
            self.once(request.key, "charge", || Charged {
                outcome: charge_outcome(&base, &request),
                stored: request
                    .store_as
                    .map(|source| store_outcome(&base, request.instrument, source)),
            })
            .await
        })
    }

    fn charge_stored<'a>(&'a self, charge: StoredCharge<'a>) -> Call<'a, ChargeOutcome> {
        Box::pin(async move {
            self.once(charge.key, "charge", || {
                stored_outcome(charge.reference, charge.key)
            })
            .await
        })
    }

    fn store_instrument<'a>(
        &'a self,
        instrument: &'a Instrument,
        key: &'a str,
    ) -> Call<'a, StoreOutcome> {
        Box::pin(async move {
            let base = self.base_url.clone();
            self.once(key, "store", || store_outcome(&base, instrument, key))
                .await
        })
    }

    fn refund<'a>(
        &'a self,
        key: &'a str,
        _provider_payment_id: &'a str,
        _amount: Money,
    ) -> Call<'a, RefundOutcome> {
        Box::pin(async move {
            self.once(key, "refund", || RefundOutcome::Succeeded {
                provider_refund_id: format!("test_re_{}", key.replace('-', "")),
            })
            .await
        })
    }

    fn find_charge<'a>(
        &'a self,
        key: &'a str,
        _prepared: Option<&'a str>,
        _amount: Money,
    ) -> Call<'a, Option<Charged>> {
        Box::pin(async move {
            // A new charge's entry carries the instrument it kept; a stored one's does not.
            if let Ok(Some(charged)) = self.known::<Charged>(key).await {
                return Ok(Some(charged));
            }
            let outcome = self.known::<ChargeOutcome>(key).await?;
            Ok(outcome.map(|outcome| Charged {
                outcome,
                stored: None,
            }))
        })
    }

    fn find_refund<'a>(
        &'a self,
        key: &'a str,
        _provider_payment_id: &'a str,
    ) -> Call<'a, Option<RefundOutcome>> {
        Box::pin(async move { self.known(key).await })
    }

    fn committed(&self) {
        if self.faults.get() == Some(Fault::AbortAfterCommit) {
            std::process::abort();
        }
    }
}

fn charge_outcome(base_url: &str, request: &ChargeRequest<'_>) -> ChargeOutcome {
    {
        let provider_payment_id = format!("test_{}", request.key.replace('-', ""));
        match request.instrument {
            Instrument::Card(card) => match card.number.as_str() {
                "4000000000000002" => ChargeOutcome::Failed {
                    provider_payment_id,
                    reason: "card_declined".into(),
                },
                "4000000000009995" => ChargeOutcome::Failed {
                    provider_payment_id,
                    reason: "insufficient_funds".into(),
                },
                "4000000000003220" => ChargeOutcome::Pending {
                    redirect: Some(format!("{base_url}/test-psp/3ds/{}", request.key)),
                    provider_payment_id,
                },
                _ => ChargeOutcome::Succeeded {
                    provider_payment_id,
                },
            },
            Instrument::SepaDirectDebit(_) => ChargeOutcome::Pending {
                provider_payment_id,
                redirect: None,
            },
            // Refused before anything was recorded (`refuses`).
            Instrument::DonorCard => ChargeOutcome::Failed {
                provider_payment_id,
                reason: "payment_information_missing".into(),
            },
            Instrument::Wallet => ChargeOutcome::Pending {
                redirect: Some(format!("{base_url}/test-psp/3ds/{}", request.key)),
                provider_payment_id,
            },
        }
    }
}

fn store_outcome(base_url: &str, instrument: &Instrument, source_uuid: &str) -> StoreOutcome {
    {
        let id = source_uuid.replace('-', "");
        let approval = format!("{base_url}/test-psp/3ds/{source_uuid}");
        match instrument {
            Instrument::Card(card) => match card.number.as_str() {
                "4000000000000002" => StoreOutcome::Failed {
                    reason: "card_declined".into(),
                },
                "4000000000009995" => StoreOutcome::Failed {
                    reason: "insufficient_funds".into(),
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
            Instrument::SepaDirectDebit(_) => StoreOutcome::Active {
                reference: format!("mandate_{id}"),
            },
            Instrument::DonorCard => StoreOutcome::Failed {
                reason: "payment_information_missing".into(),
            },
            // The donor agrees to later charges at the wallet, as with TWINT and PayPal.
            Instrument::Wallet => StoreOutcome::Pending {
                reference: format!("agreement_{id}"),
                redirect: approval,
            },
        }
    }
}

fn stored_outcome(reference: &str, payment_uuid: &str) -> ChargeOutcome {
    {
        let provider_payment_id = format!("test_{}", payment_uuid.replace('-', ""));
        if reference.starts_with(FAILING) {
            ChargeOutcome::Failed {
                provider_payment_id,
                reason: "card_declined".into(),
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
