//! Taking money and giving it back, each as three steps with the provider's call between
//! them (docs/payments.md, "Charging"): record the intent, call the provider outside any
//! transaction under a key it sees, record the outcome once. An outcome not heard is
//! settled by asking the provider about that key, never by calling again.

pub(crate) mod changes;
pub(crate) mod charge;
pub(crate) mod ending;
pub(crate) mod initiate;
pub(crate) mod intents;
pub(crate) mod outcome;
pub(crate) mod source_charge;
pub(crate) mod test_psp;

use coffer_auth::Caller;
use coffer_store::{Batches, Lookups, Store};
use serde_json::Value;

pub(crate) use self::charge::{charge_again, send, settle};
pub(crate) use self::ending::{ask_the_bank, give_up};
pub(crate) use self::initiate::initiate;
pub(crate) use self::source_charge::charge_source;
use crate::command_kit::{Parts, require_owner};
use crate::error::PaymentsError;
use crate::shared::record::Payment;
use crate::shared::store as record;

/// Charges that arrive together share their writes (coffer_store::Batches): their intents
/// (step 1, intents.rs) and the providers' answers (step 3, outcome.rs). Payments' own,
/// built beside the service's state (lib.rs) and handed to the commands that charge.
pub(crate) struct ChargeBatches {
    intents: Batches<intents::Reserving, intents::Reserved>,
    outcomes: Batches<outcome::Recording, outcome::Recorded>,
}

impl ChargeBatches {
    pub(crate) fn new() -> Self {
        Self {
            intents: Batches::new(intents::AT_ONCE, intents::MAX_BATCH, intents::reserve_batch),
            outcomes: Batches::new(outcome::AT_ONCE, outcome::MAX_BATCH, outcome::record_batch),
        }
    }
}

/// Reads of a payment by its uuid that arrive together, answered by one statement
/// (coffer_store::Lookups): built beside the service's state (lib.rs) for the Get
/// operation, whose reads come most and together.
pub(crate) type PaymentReads = Lookups<Payment>;

/// Batches of reads in flight at once: while they are read the next gathers, so under
/// load each statement answers many reads. Two read fastest on a 2-core PostgreSQL
/// (11,300-12,400 reads/s against 9,300 with 4 and 8,900-10,000 with 8; issue 34).
const READS_AT_ONCE: usize = 2;
/// A batch's most uuids: its statement stays one index probe per uuid, bounded.
const MAX_READS: usize = 64;

pub(crate) fn payment_reads(store: &Store) -> PaymentReads {
    Lookups::new(store.clone(), (READS_AT_ONCE, MAX_READS), record::find_all)
        .alone_on_sqlite(record::find)
}

async fn find(state: &Parts, uuid: String) -> Result<Payment, PaymentsError> {
    state
        .store
        .read(move |db| record::find(db, &uuid))
        .await?
        .ok_or(PaymentsError::not_found("Payment"))
}

/// The payment, once the caller may touch it.
pub(crate) async fn load(
    reads: &PaymentReads,
    caller: &Caller,
    uuid: String,
) -> Result<Payment, PaymentsError> {
    let payment = reads
        .find(caller.client_id(), uuid)
        .await?
        .ok_or(PaymentsError::not_found("Payment"))?;
    require_owner(caller, &payment.account_uuid, &payment.organisation_uuid)?;
    Ok(payment)
}

/// The payment as its Get operation answers it.
pub(crate) async fn current(state: &Parts, uuid: String) -> Result<Value, PaymentsError> {
    serde_json::to_value(find(state, uuid).await?).map_err(PaymentsError::internal)
}
