//! What the payouts copy reads: payments' `payout.created`, each kept as reconciliation's
//! copy (the `payouts` consumer, wired in lib.rs).

use coffer_events::catalogue::PAYOUT_CREATED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::commands;
use super::store::Row;

/// Keeps each payout payments makes, for statements' credits to be matched with.
pub struct PayoutCopies;

impl Handler for PayoutCopies {
    fn wants(&self, event: &Event) -> bool {
        PAYOUT_CREATED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        // The amount is an object of its own; a payout without it can never be kept.
        let amount = |field: &str| {
            event.data["amount"][field].as_str().ok_or_else(|| {
                HandlerError::Permanent(format!("{} has no amount.{field}", event.name))
            })
        };
        let payout = Row {
            uuid: event.text("uuid")?,
            organisation_uuid: event.text("organisation_uuid")?,
            account_uuid: event.text("account_uuid")?,
            // Money's value is minor units as a string of digits, as the API writes it.
            amount_value: amount("value")?.parse().map_err(|_| {
                HandlerError::Permanent(format!(
                    "{} has no amount.value in minor units",
                    event.name
                ))
            })?,
            currency: amount("currency")?.to_owned(),
            reference: event.text("reference")?,
            settlement_date: event.text("settlement_date")?,
            matched_report_uuid: None,
        };
        commands::keep_payout(db, &payout)?;
        Ok(())
    }
}
