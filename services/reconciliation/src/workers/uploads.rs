//! Finds files uploaded under sources' prefixes and reads each once: a pass records the
//! new ones, then reads those that wait. Any replica of the service may run it at once:
//! a file is recorded once by its key, and its report written once by its row.

use std::time::Duration;

use actix_web::web;

use crate::ReconciliationState;
use crate::uploads::commands::{read_waiting, receive_new};

pub async fn read_forever(state: web::Data<ReconciliationState>) {
    loop {
        match receive_new(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(files = n, "new bank files received"),
            Err(e) => tracing::warn!(error = %e, "looking for uploaded files failed"),
        }
        match read_waiting(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(files = n, "bank files read"),
            Err(e) => tracing::warn!(error = %e, "reading uploaded files failed"),
        }
        tokio::time::sleep(state.read_every.max(Duration::from_millis(100))).await;
    }
}
