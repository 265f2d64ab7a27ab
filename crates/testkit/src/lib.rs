//! Test support for Coffer services: a real server on 127.0.0.1:0 against a fresh, migrated
//! database (SQLite always, PostgreSQL when `COFFER_TEST_POSTGRES_URL` is set), with a
//! manual clock and tokens minted for any organisation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod app;
pub mod contract;
mod db;
pub mod probe;
pub mod receiver;
mod stored;

pub use app::{Harness, ISSUER, START_UNIX, ServerOptions, TestApp};
pub use db::{Backend, TestDb, kafka_brokers, postgres_url};
pub use stored::{execute, master_keys, texts};

/// Declares each test once and runs it on both backends, as `<name>::sqlite` and
/// `<name>::postgres`.
///
/// ```ignore
/// coffer_testkit::backend_tests! {
///     async fn lists_organisations(backend) {
///         let app = spawn(backend).await;
///         ...
///     }
/// }
/// ```
#[macro_export]
macro_rules! backend_tests {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn run($backend: $crate::Backend) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                run($crate::Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if $crate::Backend::postgres_enabled() {
                    run($crate::Backend::Postgres).await
                }
            }
        }
    )*};
}
