//! What a blueprint does with a parsed file, as pure functions: whether the file fits the
//! blueprint, and then the processing's outcome (matched, created and unmatched entries
//! and the totals), from which the report and the events are written in one transaction
//! (files/commands.rs).

pub mod direct_debits;
pub mod fit;
pub mod outcome;
pub mod payouts;
pub mod references;

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
        Processing::MatchWireTransfers => outcome.note_unprocessed(
            "match_wire_transfers reads the file's totals only in this version; its credits are not turned into payments yet",
        ),
    }
    outcome
}
