//! Polls the SFTP sources that are due (each every `poll_seconds`, by the service's clock),
//! looking every `read_every`. Any replica may run it: a poll is claimed on the source's
//! row, a file recorded once by its key, and its report written once by its row.

use std::time::Duration;

use actix_web::web;

use crate::files::turns::Turns;
use crate::sftp::commands::poll_due;
use crate::state::ReconciliationState;

pub async fn poll_forever(state: web::Data<ReconciliationState>, turns: web::Data<Turns>) {
    loop {
        match poll_due(&state, &turns).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(sources = n, "SFTP sources polled"),
            Err(e) => tracing::warn!(error = %e, "looking for SFTP sources to poll failed"),
        }
        tokio::time::sleep(state.read_every.max(Duration::from_millis(100))).await;
    }
}
