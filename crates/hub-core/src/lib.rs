//! The hub's domain: accounts, tokens, projects and versions, the role gate,
//! plans, audit rows and the store behind them.
//!
//! Every use case is one method of [`Hub`]; the REST API, the CLI and (later)
//! the dashboard and MCP all call these methods, so the role gate, the plan
//! gates and audit rows cannot be skipped by any entry point. This crate
//! knows nothing about HTTP: it returns [`HubError`]s that `hub-http` maps to
//! status codes and the wire envelope in one table.

pub mod accounts;
pub mod assistant;
pub mod audit;
pub mod audit_log;
pub mod blobs;
pub mod demo;
pub mod diffs;
pub mod docs;
pub mod error;
pub mod inboxes;
pub mod mcp;
pub mod mock;
pub mod model;
pub mod monitoring;
pub mod names;
pub mod plans;
pub mod projects;
pub mod read_cache;
pub mod roles;
pub mod sdks;
pub mod search;
pub mod semantic;
pub mod sessions;
pub mod store;
pub mod team;
pub mod tokens;
pub mod tryit;
pub mod uploads;
pub mod versions;
pub mod workbench;

use std::path::Path;
use std::sync::Arc;

use kernel::Clock;
use platform::blobs::{BlobStore, DbBlobStore, FsBlobStore};
use platform::{Db, DbError, Migrations};

pub use error::{HubError, HubResult, TokenRejection};
pub use model::{AuditEvent, Principal, Project, ProjectAccess, Source, TokenInfo, User, Version};
pub use plans::{Feature, Plan};
pub use roles::{Access, Action, Role};

use crate::audit::AuditDraft;
use crate::store::Store;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The hub's embedded migrations.
pub const MIGRATIONS: Migrations = Migrations { sqlite: &SQLITE_MIGRATIONS, postgres: &POSTGRES_MIGRATIONS };

/// The hub's use cases over one store, one blob store and one clock.
#[derive(Clone, Debug)]
pub struct Hub {
    store: Store,
    blobs: Arc<dyn BlobStore>,
    clock: Arc<dyn Clock>,
    spec_limits: spec::Limits,
    read_cache: Option<Arc<read_cache::ReadCache>>,
    /// Bumped by every change this process makes that a mock snapshot
    /// reads (projects, versions, mock settings and overrides).
    mock_generation: Arc<std::sync::atomic::AtomicU64>,
    /// argon2 on the blocking pool behind a semaphore.
    passwords: platform::passwords::Passwords,
    /// Sign-up mode, mail and the public URL of mailed links.
    accounts: Arc<sessions::AccountsConfig>,
    /// The operator's model for the docs assistant (`SVC_LLM_URL`).
    llm: Option<Arc<platform::llm::LlmConfig>>,
    /// The in-memory indexes of documents searched lately (see `search`).
    search_indexes: Arc<search::DocumentIndexes>,
    /// The sentence model re-ranking the search (built in, or the
    /// operator's `SVC_LLM_EMBEDDING_MODEL`; see `semantic`).
    semantic: Option<Arc<semantic::Semantic>>,
    /// Pushed documents whose search is being prepared (`docs::PREPARED_AT_ONCE`).
    preparing: Arc<tokio::sync::Semaphore>,
    /// Commits inbox captures in groups (started on the first capture).
    capture_writer: Arc<std::sync::OnceLock<inboxes::CaptureWriter>>,
    /// Work started off the request path (mail, and the lookups whose
    /// timing would tell whether an address has an account).
    background: tokio_util::task::TaskTracker,
    /// Seals recoverable secrets (the audit webhook's signing key).
    secret_key: Arc<platform::secrets::SecretKey>,
    /// The client of the audit webhook and chat notifications, behind the
    /// outbound guard.
    webhooks: platform::outbound::Outbound,
    /// Wakes the audit outbox's worker.
    outbox: Arc<tokio::sync::Notify>,
    /// The client of uptime probes, behind the outbound guard.
    probes: platform::outbound::Outbound,
    /// The Try-It relay's client (saved requests run through it).
    relay: platform::outbound::Outbound,
    /// The uptime round's period (status pages say when they refresh).
    probe_interval_secs: u64,
    /// Compiled `webhooks` of the descriptions inbox captures were matched
    /// against lately, by content hash.
    webhook_models: Arc<platform::document_cache::DocumentCache<::mock::webhooks::WebhookModel>>,
    /// The API base URL of descriptions saved requests ran against, by
    /// content hash.
    request_bases: Arc<platform::document_cache::DocumentCache<Option<String>>>,
}

impl Hub {
    /// Builds the hub over an open, migrated database. Blobs live in
    /// `blob_dir` on SQLite and in the database on PostgreSQL (so every node
    /// of a multi-node deployment reads what any node wrote).
    pub fn new(db: Db, blob_dir: &Path, clock: Arc<dyn Clock>) -> Self {
        let blobs: Arc<dyn BlobStore> = match db.backend() {
            platform::Backend::Sqlite => Arc::new(FsBlobStore::new(blob_dir)),
            platform::Backend::Postgres => Arc::new(DbBlobStore::new(db.clone())),
        };
        let read_cache = match &db {
            Db::Sqlite(pool) => {
                Some(Arc::new(read_cache::ReadCache::for_sqlite(pool.connect_options().get_filename())))
            }
            Db::Postgres(_) => None,
        };
        // Mail goes to files in the data directory until the binary
        // configures the operator's choice (`with_accounts`).
        let data_dir = blob_dir.parent().unwrap_or(blob_dir);
        let accounts = sessions::AccountsConfig {
            signup: sessions::SignupMode::default(),
            public_url: "http://127.0.0.1:8080".to_owned(),
            mailer: platform::mail::Mailer::from_config(None, "noreply@localhost", data_dir)
                .unwrap_or_else(|_| unreachable!("a bare address always parses")),
        };
        Self {
            store: Store::new(db),
            blobs,
            clock,
            spec_limits: spec::Limits::default(),
            read_cache,
            mock_generation: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            passwords: platform::passwords::Passwords::default(),
            accounts: Arc::new(accounts),
            llm: None,
            search_indexes: Arc::new(search::DocumentIndexes::default()),
            semantic: None,
            preparing: Arc::new(tokio::sync::Semaphore::new(docs::PREPARED_AT_ONCE)),
            capture_writer: Arc::new(std::sync::OnceLock::new()),
            background: tokio_util::task::TaskTracker::new(),
            secret_key: Arc::new(platform::secrets::SecretKey::generate()),
            webhooks: platform::outbound::Outbound::default(),
            outbox: Arc::new(tokio::sync::Notify::new()),
            probes: platform::outbound::Outbound::default()
                .with_timeout(monitoring::PROBE_TIMEOUT)
                .with_max_response(monitoring::MAX_PROBE_BODY),
            relay: platform::outbound::Outbound::default(),
            probe_interval_secs: monitoring::DEFAULT_INTERVAL_SECS,
            webhook_models: Arc::new(platform::document_cache::DocumentCache::new(
                inboxes::WEBHOOK_MODELS,
                inboxes::WEBHOOK_MODEL_SOURCE_BYTES,
            )),
            request_bases: Arc::new(platform::document_cache::DocumentCache::new(workbench::BASE_CACHE, usize::MAX)),
        }
    }

    /// The same hub with the client uptime probes go through (its timeout
    /// is the probes' budget: give it [`monitoring::PROBE_TIMEOUT`]; the
    /// body limit is the monitor's own) and the rounds' period.
    #[must_use]
    pub fn with_probes(mut self, outbound: platform::outbound::Outbound, interval_secs: u64) -> Self {
        self.probes = outbound.with_max_response(monitoring::MAX_PROBE_BODY);
        self.probe_interval_secs = interval_secs.max(1);
        self
    }

    /// The uptime round's period in seconds.
    pub const fn probe_interval_secs(&self) -> u64 {
        self.probe_interval_secs
    }

    /// The same hub with the service's secret key (sealed secrets outlive
    /// restarts only with the key they were sealed with).
    #[must_use]
    pub fn with_secret_key(mut self, key: platform::secrets::SecretKey) -> Self {
        self.secret_key = Arc::new(key);
        self
    }

    /// The same hub with the Try-It relay's client (`SVC_OUTBOUND_ALLOW` and
    /// `SVC_OUTBOUND_ALLOW_TRYIT`), which saved requests run through.
    #[must_use]
    pub fn with_relay(mut self, outbound: platform::outbound::Outbound) -> Self {
        self.relay = outbound;
        self
    }

    /// The same hub with the client its webhooks go through.
    #[must_use]
    pub fn with_webhooks(mut self, outbound: platform::outbound::Outbound) -> Self {
        self.webhooks = outbound;
        self
    }

    /// Runs `work` after the answer, off the request path. The work is
    /// tracked: [`Hub::settle_background`] waits for it, and a graceful
    /// shutdown waits before the process ends, so no mail is lost to a
    /// restart.
    pub(crate) fn in_background(&self, work: impl std::future::Future<Output = ()> + Send + 'static) {
        self.background.spawn(work);
    }

    /// Waits until the work started off the request path so far is done
    /// (graceful shutdown, and tests that read the mail it sends).
    pub async fn settle_background(&self) {
        self.background.close();
        self.background.wait().await;
        self.background.reopen();
    }

    /// The same hub with a sentence model re-ranking the docs search
    /// (`None`: the word engine alone, as a hub starts).
    #[must_use]
    pub fn with_search_model(mut self, model: Option<semantic::SearchModel>) -> Self {
        self.semantic = model.map(|m| Arc::new(semantic::Semantic::new(m)));
        self
    }

    /// The same hub with the operator's sign-up mode, mail and public URL.
    #[must_use]
    pub fn with_accounts(mut self, config: sessions::AccountsConfig) -> Self {
        self.accounts = Arc::new(config);
        self
    }

    /// Opens the store named by the configuration and applies migrations.
    pub async fn open(database_url: Option<&str>, data_dir: &Path, clock: Arc<dyn Clock>) -> Result<Self, DbError> {
        let db = Db::open(database_url, &data_dir.join("hub.db")).await?;
        db.migrate(&MIGRATIONS).await?;
        Ok(Self::new(db, &data_dir.join("blobs"), clock))
    }

    pub const fn store(&self) -> &Store {
        &self.store
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    pub fn db(&self) -> &Db {
        self.store.db()
    }

    /// Changes only when this process changed something a mock snapshot
    /// reads; caches of snapshots compare it (with a short expiry for
    /// changes made by other processes or nodes).
    pub fn mock_generation(&self) -> u64 {
        self.mock_generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The SQLite WAL-index stamp, when the store is SQLite: it changes with
    /// every commit of any process, so a cache keyed by it is exact.
    pub fn change_stamp(&self) -> Option<read_cache::Stamp> {
        self.read_cache.as_ref().and_then(|cache| cache.stamp())
    }

    fn mock_changed(&self) {
        self.mock_generation.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// An audit row for a mutation by `actor` on the account of
    /// `account_user_id`, or `None` when that account's plan keeps no log.
    fn audit_row(
        &self,
        account_user_id: &str,
        account_plan: Plan,
        actor_user_id: &str,
        source: Source,
        draft: AuditDraft,
    ) -> Option<AuditEvent> {
        let event = account_plan
            .writes_audit()
            .then(|| draft.into_event(account_user_id, actor_user_id, source, self.clock.now()));
        if event.is_some() {
            // The row may be queued for the webhook: the worker looks again
            // (and once more on its next tick, in case this was before commit).
            self.outbox.notify_one();
        }
        event
    }
}
