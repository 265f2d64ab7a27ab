use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use uuid::Uuid;

#[derive(Debug, Parser)]
#[command(
    name = "coffer",
    version,
    about = "Coffer: fundraising payments, all services in one process"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve every service on one port from SQLite files under the data directory.
    Dev(DevArgs),
    /// Apply pending migrations to every service's database in the data directory.
    Migrate(DataDirArgs),
    /// Operator commands; safe to run while `coffer dev` is serving the same data directory.
    Admin(Box<AdminArgs>),
    /// Load a running Coffer over loopback and report throughput, latency and memory.
    Bench(crate::bench::BenchArgs),
    /// Events per second from outbox to consumer and the lag between them, in-process
    /// and (with --kafka) on Kafka with PostgreSQL.
    BenchEvents(crate::bench_events::BenchEventsArgs),
    /// Signed webhook deliveries per second and the lag from commit to receipt, to an
    /// HTTPS receiver on loopback (scripts/bench-deliveries.sh).
    BenchDeliveries(crate::bench_deliveries::BenchDeliveriesArgs),
    /// Card payments and payment reads per second, and search latency, against a running
    /// Coffer (scripts/bench-payments.sh sets one up on PostgreSQL).
    BenchPayments(crate::bench_payments::BenchPaymentsArgs),
    /// Reading and matching a generated camt.053 (100 MB by default) beside a bare XML
    /// parse of it, with each reader's peak memory (scripts/bench-reconcile.sh).
    BenchReconcile(crate::bench_reconcile::BenchReconcileArgs),
    /// Each search shape a dashboard asks (histogram, stats, custom parameters, a range
    /// sorted by amount, kept counts), timed against a running Coffer whose payments were
    /// seeded in bulk (scripts/bench-search.sh).
    BenchSearch(crate::bench_search::BenchSearchArgs),
    /// Read a bank file (camt.053 or camt.054) with a blueprint, as an upload would be, and
    /// print its report; its events go out when the service runs.
    Reconcile(ReconcileArgs),
    /// Print the whole API description (OpenAPI 3.1), or serve it with its browsable
    /// reference (`--listen`), as the gateway's `/openapi.json` and `/docs`.
    Openapi(OpenapiArgs),
}

#[derive(Debug, Args)]
pub struct OpenapiArgs {
    /// Serve `/openapi.json` and `/docs` on this address instead of printing.
    #[arg(long, env = "COFFER_LISTEN")]
    pub listen: Option<String>,
}

#[derive(Debug, Args)]
pub struct DataDirArgs {
    #[arg(long, default_value = "./data", env = "COFFER_DATA_DIR")]
    pub data_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct DevArgs {
    #[arg(long, default_value = "127.0.0.1:8080", env = "COFFER_LISTEN")]
    pub listen: String,
    #[arg(long, default_value = "./data", env = "COFFER_DATA_DIR")]
    pub data_dir: PathBuf,
    /// HTTP worker threads, and the runtime's; 0 means one per core, at most 8.
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
    /// How many steps below normal priority the main runtime's threads run (the stores'
    /// writers, event handlers, background workers), so that reads go first when the
    /// cores are busy; 0 to 19, 0 keeps every thread at normal priority (Linux only).
    #[arg(long, default_value_t = 10, env = "COFFER_BACKGROUND_NICE",
        value_parser = clap::value_parser!(u8).range(0..=19))]
    pub background_nice: u8,
    /// Log format: json (for log shippers) or text.
    #[arg(long, default_value = "text")]
    pub log_format: String,
    /// What is logged: a tracing filter such as `warn` or `info,coffer_payments=debug`;
    /// `RUST_LOG`, when set, wins.
    #[arg(long, default_value = "info", env = "COFFER_LOG__LEVEL")]
    pub log_level: String,
    /// Log a line per request answered (method, path, status) at INFO; off by default.
    #[arg(long, env = "COFFER_LOG__REQUESTS")]
    pub log_requests: bool,
    /// Seconds a request body may take beyond what it earns at 64 KiB a second; then it
    /// is answered 408 and its connection closed.
    #[arg(
        long,
        default_value_t = 15,
        env = "COFFER_HTTP__BODY_TIMEOUT_SECONDS",
        value_parser = clap::value_parser!(u64).range(1..=3_600)
    )]
    pub body_timeout_seconds: u64,
    /// Connections one client address may hold open at once; more are closed as they are
    /// accepted.
    #[arg(
        long,
        default_value_t = 128,
        env = "COFFER_HTTP__CONNECTIONS_PER_ADDRESS",
        value_parser = clap::value_parser!(u64).range(1..=100_000)
    )]
    pub connections_per_address: u64,
    /// Subnets (comma-separated CIDRs) webhook deliveries may reach beyond public
    /// addresses, such as 127.0.0.0/8 for a receiver on this machine.
    #[arg(long, default_value = "", env = "COFFER_NOTIFICATIONS__ALLOW_SUBNETS")]
    pub webhook_allow_subnets: String,
    /// A PEM file of roots webhook deliveries trust beside the platform's.
    #[arg(
        long,
        default_value = "",
        env = "COFFER_NOTIFICATIONS__EXTRA_ROOT_CERTS"
    )]
    pub webhook_extra_root_certs: String,
    /// Stripe's API, for profiles served by a Stripe connector account (a server that
    /// answers as Stripe does, such as localstripe, in tests).
    #[arg(
        long,
        default_value = "https://api.stripe.com",
        env = "COFFER_PAYMENTS__STRIPE_API"
    )]
    pub stripe_api: String,
    /// Let card numbers go to a live Stripe account (Stripe approves this per account:
    /// PCI DSS SAQ D). Off, live profiles take no card data.
    #[arg(long, env = "COFFER_PAYMENTS__RAW_CARD_DATA")]
    pub raw_card_data: bool,
    /// How long a call to a payment provider may take before its outcome counts as
    /// unknown (1000 to 120000 ms).
    #[arg(
        long,
        default_value_t = 10_000,
        env = "COFFER_PAYMENTS__CONNECTOR_TIMEOUT_MS"
    )]
    pub connector_timeout_ms: u64,
    /// How long a call stays unanswered before the provider is asked what it did: longer
    /// than three connector timeouts, at most a day (86400000 ms).
    #[arg(
        long,
        default_value_t = 60_000,
        env = "COFFER_PAYMENTS__SETTLE_AFTER_MS"
    )]
    pub settle_after_ms: u64,
    /// How long a payment may wait for its donor on a provider's challenge (3-D Secure)
    /// before it is given up: at least --settle-after-ms, at most a week (604800000 ms).
    #[arg(
        long,
        default_value_t = 3_600_000,
        env = "COFFER_PAYMENTS__DONOR_WAIT_MS"
    )]
    pub donor_wait_ms: u64,
}

#[derive(Debug, Args)]
pub struct AdminArgs {
    #[arg(long, default_value = "./data", env = "COFFER_DATA_DIR")]
    pub data_dir: PathBuf,
    /// Identity's database, when it is not the SQLite file in the data directory
    /// (a distributed install on PostgreSQL).
    #[arg(long, env = "COFFER_IDENTITY_DATABASE_URL")]
    pub identity_database_url: Option<String>,
    /// Onboarding's database, when it is not the SQLite file in the data directory.
    #[arg(long, env = "COFFER_ONBOARDING_DATABASE_URL")]
    pub onboarding_database_url: Option<String>,
    /// Payments' database, when it is not the SQLite file in the data directory.
    #[arg(long, env = "COFFER_PAYMENTS_DATABASE_URL")]
    pub payments_database_url: Option<String>,
    /// The event prefix the services run with (`events.prefix`): the changes are
    /// announced on its topics.
    #[arg(long, env = "COFFER_EVENTS__PREFIX", default_value = "coffer")]
    pub events_prefix: String,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    #[command(subcommand)]
    Organisation(OrganisationCommand),
    #[command(subcommand)]
    Account(AccountCommand),
    #[command(subcommand)]
    Client(ClientCommand),
    #[command(subcommand)]
    Partner(PartnerCommand),
    #[command(subcommand)]
    User(UserCommand),
    #[command(subcommand)]
    OnboardingConfiguration(OnboardingConfigurationCommand),
    #[command(subcommand)]
    Address(AddressCommand),
    #[command(subcommand)]
    Metadata(MetadataCommand),
    #[command(subcommand)]
    BillingData(BillingCommand),
    #[command(subcommand)]
    Payouts(PayoutsCommand),
    #[command(subcommand)]
    ConnectorAccount(ConnectorAccountCommand),
    #[command(subcommand)]
    Profile(ProfileCommand),
    #[command(subcommand)]
    Keys(KeysCommand),
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// Seed the demo tenant unless it exists, and write `<data-dir>/credentials.json`
    /// (what `coffer dev` does on first start; for a distributed install).
    Demo {
        /// The address clients reach the API on (the gateway's).
        #[arg(long)]
        base_url: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum OrganisationCommand {
    /// Create an organisation; prints it in the single form.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        merchant_category_code: Option<String>,
        /// language_TERRITORY, e.g. de_CH.
        #[arg(long)]
        locale: Option<String>,
        /// approved (default), approval_pending or rejected.
        #[arg(long)]
        approval_status: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum AccountCommand {
    /// Create an account of an organisation; prints it in the single form.
    Create {
        #[arg(long)]
        organisation: Uuid,
        #[arg(long)]
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Create an API client; prints {client_id, client_secret}. The secret is shown once.
    Create {
        /// An organisation the client may touch (repeatable).
        #[arg(long, required_unless_present = "platform")]
        organisation: Vec<Uuid>,
        /// A client that touches every tenant (operator tooling, service-to-service).
        #[arg(long, conflicts_with = "organisation")]
        platform: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum PartnerCommand {
    /// Create a partner; prints {uuid, name, client_id, client_secret, redirect_uris}. The
    /// same client serves the partner's API calls and its users' single sign-on; the
    /// secret is shown once.
    Create {
        #[arg(long)]
        name: String,
        /// Where its users may be sent back with a code (repeatable; https, or http to
        /// 127.0.0.1, [::1] or localhost).
        #[arg(long = "redirect-uri", required = true)]
        redirect_uri: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum OnboardingConfigurationCommand {
    /// Create an onboarding configuration for a partner; prints {uuid, partner_uuid,
    /// account_labels, default_locale, created}.
    Create {
        /// The partner (its uuid, as `partner create` printed it).
        #[arg(long)]
        partner: Uuid,
        /// An account to create for each onboarded organisation, by its label
        /// (repeatable).
        #[arg(long = "account-label", required = true)]
        account_label: Vec<String>,
        /// The new user's locale when the process names none: en (default), de, fr or it.
        #[arg(long)]
        locale: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user of an organisation, who signs in to partners with e-mail and
    /// password; prints the user (never the password).
    Create {
        #[arg(long)]
        email: String,
        /// At least 10 characters. Without one the user cannot sign in until
        /// `user set-password` gives one.
        #[arg(long, env = "COFFER_USER_PASSWORD", hide_env_values = true)]
        password: Option<String>,
        #[arg(long)]
        name: String,
        #[arg(long)]
        organisation: Uuid,
        /// en, de, fr or it.
        #[arg(long)]
        locale: Option<String>,
    },
    /// Give a user a new password; prints the user.
    SetPassword {
        #[arg(long)]
        email: String,
        #[arg(long, env = "COFFER_USER_PASSWORD", hide_env_values = true)]
        password: String,
    },
}

#[derive(Debug, Args)]
pub struct Owner {
    #[arg(long, required_unless_present = "account", conflicts_with = "account")]
    pub organisation: Option<Uuid>,
    #[arg(long)]
    pub account: Option<Uuid>,
}

#[derive(Debug, Args)]
pub struct AddressFields {
    #[arg(long)]
    pub line1: String,
    #[arg(long, default_value = "")]
    pub line2: String,
    #[arg(long)]
    pub postal_code: String,
    #[arg(long)]
    pub city: String,
    /// ISO 3166-1 alpha-2.
    #[arg(long)]
    pub country: String,
}

#[derive(Debug, Subcommand)]
pub enum AddressCommand {
    /// Add an address to an organisation or an account; prints it.
    Add {
        #[command(flatten)]
        owner: Owner,
        #[command(flatten)]
        address: AddressFields,
        /// billing, main or postal.
        #[arg(long = "type", default_value = "billing")]
        kind: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum MetadataCommand {
    /// Set metadata keys (key=value ...); prints the whole metadata object.
    Set {
        #[command(flatten)]
        owner: Owner,
        #[arg(required = true, value_parser = parse_pair)]
        entries: Vec<(String, String)>,
    },
}

fn parse_pair(raw: &str) -> Result<(String, String), String> {
    raw.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .ok_or_else(|| format!("{raw:?} is not key=value"))
}

#[derive(Debug, Subcommand)]
pub enum BillingCommand {
    /// Set an account's billing data; prints it.
    Set {
        #[arg(long)]
        account: Uuid,
        #[arg(long)]
        account_holder: String,
        #[arg(long)]
        iban: String,
        #[arg(long, default_value = "")]
        vat_number: String,
        /// A recipient e-mail address (repeatable).
        #[arg(long = "email")]
        recipient_emails: Vec<String>,
        #[command(flatten)]
        address: AddressFields,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Sign new tokens with a new key; the old one verifies until its tokens expire.
    Rotate,
}

#[derive(Debug, Subcommand)]
pub enum SecretsCommand {
    /// Standalone: add a master key to <data-dir>/master-keys.json and make it current;
    /// the next `coffer dev` start seals every stored secret of every service under it,
    /// after which the old key may be deleted from the file. Prints its id.
    Rotate,
    /// Print a new master key (`kid:base64key`) to add to `secrets.keys` of a distributed
    /// install; nothing is stored (docs/deployment.md, rotating the master key).
    NewKey,
}

#[derive(Debug, Subcommand)]
pub enum PayoutsCommand {
    /// Pay out the account's succeeded card, TWINT and PayPal payments now, without
    /// waiting for the daily run, and print the payouts made (none when nothing waits).
    Settle {
        #[arg(long)]
        account: Uuid,
        /// The test provider's fee share in basis points (`payments.payout_fee_basis_points`).
        #[arg(
            long,
            env = "COFFER_PAYMENTS__PAYOUT_FEE_BASIS_POINTS",
            default_value_t = 190
        )]
        fee_basis_points: u32,
        /// Its fixed fee in minor units (`payments.payout_fee_fixed`).
        #[arg(long, env = "COFFER_PAYMENTS__PAYOUT_FEE_FIXED", default_value_t = 25)]
        fee_fixed: i64,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConnectorAccountCommand {
    /// Make an account's account at a payment provider, or give it new keys. The secret
    /// key is read from the first line of standard input (empty: keep the one set before),
    /// a webhook signing secret from the second, if any; neither is ever an argument, so
    /// neither shows in a process list or a shell's history. Prints the account with its
    /// key's hint, never a key.
    Set {
        #[arg(long)]
        account: Uuid,
        /// A name of the account's own (`main`, `live-eu`): 1 to 64 of a-z, 0-9, - and _.
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "stripe")]
        provider: String,
        /// `test` or `live`; the key's prefix must say the same.
        #[arg(long)]
        mode: String,
        /// The publishable key (`pk_test_...`, `pk_live_...`) the donor's payment page hands
        /// Stripe's script: public by design, so an argument. Without one, a card that asks
        /// for 3-D Secure fails, since no page can be shown.
        #[arg(long)]
        publishable_key: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProfileCommand {
    /// Make a payment method profile served by one of the account's connector accounts,
    /// or point one at another. It takes the connector account's mode (`test_mode`), and
    /// the first of its method and mode is that mode's default. Prints the profile.
    Set {
        #[arg(long)]
        account: Uuid,
        /// The profile's name, as payments name it (`card_stripe`): 1 to 64 of a-z, 0-9,
        /// - and _; `default` and the test provider's `<method>_test` are taken.
        #[arg(long)]
        name: String,
        /// The method it serves (a Stripe connector account serves `card`).
        #[arg(long, default_value = "card")]
        method: String,
        /// The name of the account's connector account that serves it.
        #[arg(long)]
        connector_account: String,
        /// Make it the default of its method and mode, in place of the one before.
        #[arg(long)]
        default: bool,
    },
}

#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// The bank file.
    pub file: PathBuf,
    /// The blueprint that reads it (`GET /reconciliation/blueprints`).
    #[arg(long)]
    pub blueprint: Uuid,
    #[arg(long, default_value = "./data", env = "COFFER_DATA_DIR")]
    pub data_dir: PathBuf,
    /// Reconciliation's database, when it is not the SQLite file in the data directory.
    #[arg(long, env = "COFFER_RECONCILIATION_DATABASE_URL")]
    pub reconciliation_database_url: Option<String>,
    /// The largest file read (`reconciliation.max_file_bytes`).
    #[arg(long, env = "COFFER_RECONCILIATION__MAX_FILE_BYTES", default_value_t = 128 * 1024 * 1024)]
    pub max_file_bytes: usize,
    #[arg(long, env = "COFFER_EVENTS__PREFIX", default_value = "coffer")]
    pub events_prefix: String,
}
