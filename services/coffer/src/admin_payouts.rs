//! `coffer admin payouts settle`: the test provider's payout of an account, now. It
//! settles exactly as payments' daily worker does (the same command), into payments'
//! database and outbox; the running service's relay announces the payouts.

use std::sync::Arc;

use anyhow::Context;
use coffer_events::Outbox;
use coffer_model::clock::{Clock, SystemClock};
use coffer_payments::payouts::commands::{Cutoff, Settler, settle_account};
use coffer_payments::payouts::domain::FeeSchedule;

use crate::cli::{AdminArgs, PayoutsCommand};
use crate::services;

pub async fn run(command: &PayoutsCommand, args: &AdminArgs) -> anyhow::Result<serde_json::Value> {
    let PayoutsCommand::Settle {
        account,
        fee_basis_points,
        fee_fixed,
    } = command;
    let store = match &args.payments_database_url {
        Some(url) => services::open_url(url, coffer_payments::MIGRATIONS).await?,
        None => services::open(&args.data_dir, coffer_payments::MIGRATIONS).await?,
    };
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let settler = Settler {
        store,
        outbox: Outbox::new(args.events_prefix.clone(), Arc::clone(&clock)),
        clock,
        fees: FeeSchedule {
            basis_points: *fee_basis_points,
            fixed: *fee_fixed,
        },
    };
    let made = settle_account(&settler, account.to_string(), Cutoff::Now)
        .await
        .context("settling the account")?;
    Ok(serde_json::json!({ "payouts": made }))
}
