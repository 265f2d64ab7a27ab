//! Pays out each account's payments once a day: every pass settles the accounts with
//! payments from before today and no payout today, so a pass missed (a restart, a pod
//! moved) is made up by the next.

use std::time::Duration;

use crate::payouts::commands::{Settler, settle_due};

pub async fn settle_forever(settler: Settler, every: Duration) {
    loop {
        match settle_due(&settler).await {
            Ok(0) => {}
            Ok(made) => tracing::info!(made, "payouts made"),
            Err(e) => tracing::warn!(error = %e, "looking for accounts to pay out failed"),
        }
        tokio::time::sleep(every).await;
    }
}
