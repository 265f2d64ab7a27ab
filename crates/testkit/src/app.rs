use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::ServerHandle;
use coffer_auth::{Claims, Jwks, KeySource, SharedKeys, SigningKey, Verifier, scopes};
use coffer_events::local_bus::{self, LocalBus};
use coffer_http::{AppContext, Metrics, Module, TrustedProxies};
use coffer_model::clock::{Clock, ManualClock};
use coffer_store::{Migrations, PoolOptions, SearchOptions, Store};
use uuid::Uuid;

use crate::{Backend, TestDb};

pub const ISSUER: &str = "coffer";
/// The test clock starts here (2026-01-01T00:00:00Z), so results never depend on the day.
pub const START_UNIX: i64 = 1_767_225_600;

/// What a service under test is built from.
pub struct Harness {
    pub store: Store,
    backend: Backend,
    more_dbs: Arc<std::sync::Mutex<Vec<TestDb>>>,
    /// The in-process bus, on its own database; what the service publishes lands here.
    pub bus: Arc<LocalBus>,
    pub clock: ManualClock,
    pub keys: SharedKeys,
    pub issuer: String,
}

impl Harness {
    /// Another service's own database, fresh and migrated, on the same backend; dropped
    /// with the app.
    pub async fn database(&self, migrations: Migrations) -> Store {
        self.database_searching(migrations, SearchOptions::default())
            .await
    }

    /// [`Harness::database`] whose searches have `searches`' pool and bounds.
    pub async fn database_searching(
        &self,
        migrations: Migrations,
        searches: SearchOptions,
    ) -> Store {
        let db = TestDb::create(self.backend);
        let store = migrated_searching(&db, &[migrations], searches).await;
        if let Ok(mut dbs) = self.more_dbs.lock() {
            dbs.push(db);
        }
        store
    }

    pub fn clock_arc(&self) -> Arc<dyn Clock> {
        Arc::new(self.clock.clone())
    }
}

/// A running service with its own database.
pub struct TestApp {
    pub base_url: String,
    pub http: reqwest::Client,
    pub store: Store,
    pub bus: Arc<LocalBus>,
    pub clock: ManualClock,
    pub keys: SharedKeys,
    pub backend: Backend,
    signer: SigningKey,
    server: ServerHandle,
    workers: Vec<tokio::task::JoinHandle<()>>,
    /// Kept for [`TestApp::restart`], so the new process is served as this one was.
    options: ServerOptions,
    /// Shared with the app a [`TestApp::restart`] makes, so the data outlives this one.
    dbs: Arc<Databases>,
}

/// The databases behind an app, removed when the last app on them is dropped.
struct Databases {
    db: TestDb,
    bus_db: TestDb,
    more: Arc<std::sync::Mutex<Vec<TestDb>>>,
}

async fn migrated(db: &TestDb, migrations: &[Migrations]) -> Store {
    migrated_searching(db, migrations, SearchOptions::default()).await
}

async fn migrated_searching(
    db: &TestDb,
    migrations: &[Migrations],
    searches: SearchOptions,
) -> Store {
    let store = Store::connect(
        &db.url,
        &PoolOptions {
            max_connections: 4,
            searches,
            ..PoolOptions::default()
        },
    )
    .expect("test database url");
    for set in migrations {
        let store = store.clone();
        let set = *set;
        tokio::task::spawn_blocking(move || store.migrate(&set))
            .await
            .expect("migration task")
            .expect("migrations apply");
    }
    store
}

/// What a test may change about the HTTP server around the service.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// None by default, like a service without a gateway; a test of forwarded addresses
    /// trusts 127.0.0.1, where its requests come from.
    pub trusted_proxies: TrustedProxies,
    /// The service's defaults unless a test of slow clients shortens them.
    pub client_limits: coffer_http::ClientLimits,
}

impl TestApp {
    /// Creates a fresh database, migrates it, lets `build` make the service's modules, and
    /// serves them on a free loopback port.
    pub async fn spawn<F, Fut>(backend: Backend, migrations: &[Migrations], build: F) -> TestApp
    where
        F: FnOnce(Harness) -> Fut,
        Fut: std::future::Future<Output = Vec<Arc<dyn Module>>>,
    {
        Self::spawn_with(backend, migrations, ServerOptions::default(), build).await
    }

    /// [`TestApp::spawn`] with `options` for the server.
    pub async fn spawn_with<F, Fut>(
        backend: Backend,
        migrations: &[Migrations],
        options: ServerOptions,
        build: F,
    ) -> TestApp
    where
        F: FnOnce(Harness) -> Fut,
        Fut: std::future::Future<Output = Vec<Arc<dyn Module>>>,
    {
        let db = TestDb::create(backend);
        let store = migrated(&db, migrations).await;
        let bus_db = TestDb::create(Backend::Sqlite);
        let clock = ManualClock::at_unix(START_UNIX);
        let bus = Arc::new(LocalBus::new(
            migrated(&bus_db, &[local_bus::MIGRATIONS]).await,
            Arc::new(clock.clone()),
        ));
        let dbs = Arc::new(Databases {
            db,
            bus_db,
            more: Arc::new(std::sync::Mutex::new(Vec::new())),
        });
        Self::serve(backend, store, bus, clock, dbs, options, build).await
    }

    /// Stops the server and its workers, then builds the service again on the same
    /// databases, clock and server options, as a new process would find them: nothing
    /// kept in memory (published keys included) survives.
    pub async fn restart<F, Fut>(self, build: F) -> TestApp
    where
        F: FnOnce(Harness) -> Fut,
        Fut: std::future::Future<Output = Vec<Arc<dyn Module>>>,
    {
        for worker in &self.workers {
            worker.abort();
        }
        self.server.stop(true).await;
        let (backend, store, bus, clock, options) = (
            self.backend,
            self.store.clone(),
            Arc::clone(&self.bus),
            self.clock.clone(),
            self.options.clone(),
        );
        let dbs = Arc::clone(&self.dbs);
        drop(self);
        Self::serve(backend, store, bus, clock, dbs, options, build).await
    }

    /// [`TestApp::restart`] for a service whose start may fail (one that refuses what it
    /// finds stored): served without modules then, with why.
    pub async fn restart_trying<F, Fut, E>(self, start: F) -> (TestApp, Result<(), E>)
    where
        F: FnOnce(Harness) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Arc<dyn Module>>, E>>,
    {
        let mut started = Ok(());
        let app = self
            .restart(|h| {
                let started = &mut started;
                async move {
                    start(h).await.unwrap_or_else(|e| {
                        *started = Err(e);
                        Vec::new()
                    })
                }
            })
            .await;
        (app, started)
    }

    async fn serve<F, Fut>(
        backend: Backend,
        store: Store,
        bus: Arc<LocalBus>,
        clock: ManualClock,
        dbs: Arc<Databases>,
        options: ServerOptions,
        build: F,
    ) -> TestApp
    where
        F: FnOnce(Harness) -> Fut,
        Fut: std::future::Future<Output = Vec<Arc<dyn Module>>>,
    {
        let keys = SharedKeys::default();
        let signer = SigningKey::generate("testkit").expect("test signing key");
        keys.replace(
            "testkit",
            &Jwks {
                keys: vec![signer.jwk().clone()],
            },
        );

        let harness = Harness {
            store: store.clone(),
            backend,
            more_dbs: Arc::clone(&dbs.more),
            bus: Arc::clone(&bus),
            clock: clock.clone(),
            keys: keys.clone(),
            issuer: ISSUER.to_owned(),
        };
        let modules = build(harness).await;
        let workers = modules.iter().flat_map(|m| m.spawn_workers()).collect();
        let verifier = Verifier::new(
            KeySource::Shared(keys.clone()),
            ISSUER,
            Arc::new(clock.clone()),
        );
        let ctx = AppContext {
            modules,
            verifier,
            metrics: Metrics::new().expect("metrics registry"),
            body_limit: coffer_http::body::DEFAULT_LIMIT,
            trusted_proxies: options.trusted_proxies.clone(),
            client_limits: options.client_limits,
        };
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().expect("bound address").port();
        let server = coffer_http::serve(listener, ctx, 2).expect("server starts");
        let handle = server.handle();
        tokio::spawn(server);
        TestApp {
            base_url: format!("http://127.0.0.1:{port}"),
            http: reqwest::Client::new(),
            store,
            bus,
            clock,
            keys,
            backend,
            signer,
            server: handle,
            workers,
            options,
            dbs,
        }
    }

    /// Every SQLite file behind this app (its own, the bus's and other services'), with
    /// their write-ahead logs; empty on PostgreSQL. For tests that scan what was stored.
    pub fn database_files(&self) -> Vec<std::path::PathBuf> {
        let mut urls = vec![self.dbs.db.url.clone(), self.dbs.bus_db.url.clone()];
        if let Ok(more) = self.dbs.more.lock() {
            urls.extend(more.iter().map(|db| db.url.clone()));
        }
        urls.iter()
            .filter_map(|url| url.strip_prefix("sqlite://"))
            .flat_map(|path| {
                ["", "-wal", "-shm"]
                    .map(|suffix| std::path::PathBuf::from(format!("{path}{suffix}")))
            })
            .filter(|path| path.exists())
            .collect()
    }

    /// The databases made with [`Harness::database`], in the order they were made: for a
    /// test that points another process at one of them.
    pub fn more_database_urls(&self) -> Vec<String> {
        self.dbs
            .more
            .lock()
            .map(|more| more.iter().map(|db| db.url.clone()).collect())
            .unwrap_or_default()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Claims of an ordinary client of `organisations`, valid for an hour from now.
    pub fn claims_for(&self, organisations: &[Uuid]) -> Claims {
        let now = self.clock.unix();
        Claims {
            iss: ISSUER.to_owned(),
            sub: "testkit-client".to_owned(),
            client_id: "testkit-client".to_owned(),
            organisations: organisations.to_vec(),
            accounts: Vec::new(),
            partner: None,
            scope: scopes::API.to_owned(),
            iat: now,
            nbf: None,
            exp: now + 3600,
        }
    }

    pub fn sign(&self, claims: &Claims) -> String {
        self.signer.sign(claims).expect("sign test token")
    }

    /// A bearer token for a client of `organisations`.
    pub fn token_for(&self, organisations: &[Uuid]) -> String {
        self.sign(&self.claims_for(organisations))
    }

    /// A bearer token that touches every tenant.
    pub fn platform_token(&self) -> String {
        let mut claims = self.claims_for(&[]);
        claims.scope = format!("{} {}", scopes::API, scopes::PLATFORM);
        self.sign(&claims)
    }

    pub async fn get(&self, path: &str, token: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn get_anonymous(&self, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .send()
            .await
            .expect("request sent")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // Workers go first: one still polling when the database is dropped would hold the
        // runtime's shutdown until its connection attempt times out.
        for worker in &self.workers {
            worker.abort();
        }
        let handle = self.server.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { handle.stop(false).await });
        }
    }
}
