//! `coffer openapi`: the whole API description, every service's part in one document.
//! Printed, it is what docs/api/openapi.json holds; served (`--listen`), it is what the
//! gateway and the Ingress answer `/openapi.json` and `/docs` with.

use anyhow::Context;
use coffer_http::openapi::{Part, describe, standalone};

use crate::cli::OpenapiArgs;

/// Every service's part, in the order of the route table (deploy/gateway/routes.conf).
pub fn parts() -> Vec<Part> {
    vec![
        coffer_identity::api_part(),
        coffer_payments::api_part(),
        coffer_billing::api_part(),
        coffer_notifications::api_part(),
        coffer_onboarding::api_part(),
        coffer_reconciliation::api_part(),
    ]
}

pub async fn run(args: OpenapiArgs) -> anyhow::Result<()> {
    match args.listen {
        None => {
            let whole = describe(&parts());
            println!(
                "{}",
                whole.to_pretty_json().context("writing the description")?
            );
            Ok(())
        }
        Some(listen) => {
            let listener = std::net::TcpListener::bind(&listen)
                .with_context(|| format!("binding {listen}"))?;
            eprintln!("coffer: the API description at http://{listen}/openapi.json and /docs");
            standalone(listener, parts())?.await?;
            Ok(())
        }
    }
}
