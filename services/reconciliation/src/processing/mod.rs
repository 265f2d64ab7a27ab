//! What a blueprint does with a parsed file, as pure functions: whether the file fits the
//! blueprint, and then the processing's outcome (matched, created and unmatched entries
//! and the totals), from which the report and the events are written in one transaction
//! (files/commands.rs).

pub mod creditor_reference;
pub mod direct_debits;
pub mod entries;
pub mod fit;
pub mod outcome;
pub mod payouts;
pub mod references;
pub mod wire_transfers;

use coffer_camt::Document;

use crate::blueprints::domain::Processing;
use crate::blueprints::store::Blueprint;
use outcome::Outcome;
use payouts::Payout;

/// Everything a processing reads besides the file.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub blueprint: &'a Blueprint,
    /// The account's payouts not matched yet (for `match_settlement_payouts`).
    pub payouts: &'a [Payout],
}

/// Processes a file that fits the blueprint.
pub fn process(document: &Document, context: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::counted(document);
    match context.blueprint.processing {
        Processing::MatchSettlementPayouts => payouts::match_all(document, context, &mut outcome),
        Processing::CreateDirectDebitPayments => {
            direct_debits::announce_all(document, context, &mut outcome)
        }
        Processing::MatchWireTransfers => {
            wire_transfers::announce_all(document, context, &mut outcome)
        }
    }
    outcome
}
