//! What payouts read from reconciliation: a statement's credit matched with a payout.
//! (`payout.created` is written by commands.rs in the payout's own transaction.)

use std::sync::Arc;

use coffer_events::catalogue::PAYOUT_MATCHED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_model::clock::Clock;
use coffer_store::Db;

use super::commands;

/// Records on each payout the statement credit reconciliation matched it with.
pub struct PayoutMatches {
    pub clock: Arc<dyn Clock>,
}

impl Handler for PayoutMatches {
    fn wants(&self, event: &Event) -> bool {
        PAYOUT_MATCHED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let (payout, value_date) = (event.text("payout_uuid")?, event.text("value_date")?);
        if time::Date::parse(
            &value_date,
            &time::format_description::well_known::Iso8601::DATE,
        )
        .is_err()
        {
            return Err(HandlerError::Permanent(format!(
                "{} has a value_date that is not a date: {value_date}",
                event.name
            )));
        }
        if !commands::record_match(db, &payout, &value_date, self.clock.unix())? {
            tracing::info!(
                payout,
                "the payout was matched already, or is not known here"
            );
        }
        Ok(())
    }
}
