//! `coffer`: every Coffer service in one process on embedded defaults (SQLite files under a
//! data directory, an in-process event bus), plus the operator CLI and the load benchmark.

mod admin;
mod admin_connectors;
mod admin_payouts;
mod bench;
mod bench_deliveries;
mod bench_events;
mod bench_payments;
mod bench_reconcile;
mod bench_search;
mod cli;
mod credentials;
mod data_dir;
mod demo;
mod dev;
mod directory_copies;
mod master_keys;
mod onboarding_port;
mod openapi;
mod reconcile;
mod sealed_file;
mod services;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    data_dir::restrict_umask();
    // The runtime's workers are the HTTP server's (`coffer dev --workers`).
    let (workers, nice) = match &cli.command {
        Command::Dev(args) => (
            coffer_http::threads::workers(args.workers),
            args.background_nice,
        ),
        _ => (coffer_http::threads::default_workers(), 0),
    };
    let runtime = match coffer_http::threads::runtime_giving_way(workers, nice) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("coffer: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Dev(args) => dev::run(args).await,
            Command::Migrate(args) => services::migrate(&args.data_dir).await.map(|_| ()),
            Command::Admin(args) => admin::run(*args).await,
            Command::Bench(args) => bench::run(args).await,
            Command::BenchEvents(args) => bench_events::run_all(args).await,
            Command::BenchDeliveries(args) => bench_deliveries::run(args).await,
            Command::BenchPayments(args) => bench_payments::run(args).await,
            Command::BenchReconcile(args) => bench_reconcile::run(args).await,
            Command::BenchSearch(args) => bench_search::run(args).await,
            Command::Openapi(args) => openapi::run(args).await,
            Command::Reconcile(args) => reconcile::run(args).await,
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.is::<dev::Logged>() => std::process::ExitCode::FAILURE,
        Err(e) => {
            // The whole cause chain: the last link usually says what to fix.
            eprintln!("coffer: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
