//! Payments' payouts, as reconciliation reads them.

use coffer_events::catalogue::PAYOUT_CREATED;
use coffer_events::{Event, Handler, HandlerError};
use coffer_store::Db;

use super::store::{self, Row};

pub struct Payouts;

impl Handler for Payouts {
    fn wants(&self, event: &Event) -> bool {
        PAYOUT_CREATED.is(&event.name)
    }

    fn handle(&self, db: &mut Db<'_>, event: &Event) -> Result<(), HandlerError> {
        let d = &event.data;
        let text = |path: &str| {
            d.pointer(path)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
                .ok_or_else(|| HandlerError::Permanent(format!("{} has no {path}", event.name)))
        };
        let row = Row {
            uuid: text("/uuid")?,
            organisation_uuid: text("/organisation_uuid")?,
            account_uuid: text("/account_uuid")?,
            // Money's value is minor units as a string of digits, as the API writes it.
            amount_value: text("/amount/value")?.parse().map_err(|_| {
                HandlerError::Permanent(format!("{} has no /amount/value", event.name))
            })?,
            currency: text("/amount/currency")?,
            reference: text("/reference")?,
            settlement_date: text("/settlement_date")?,
            matched_report_uuid: None,
        };
        store::keep(db, &row)?;
        Ok(())
    }
}
