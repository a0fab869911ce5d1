//! The courses service's domain: workspaces and their API keys, courses made
//! of screens and blocks, learner identities, completions, issued
//! certificates, themes, templates, translations, collections, webhooks,
//! plans with their monthly allowances, and the store behind them.
//!
//! Every use case is one method of [`Courses`]; the REST API, the learner
//! player, the CLI and MCP all call these methods, so the key scope, the
//! plan gates and the allowances cannot be skipped by any entry point. This
//! crate knows nothing about HTTP: it returns [`CoursesError`]s that
//! `courses-http` maps to status codes and the wire envelope in one table.

pub mod access;
pub mod block_form;
pub mod content;
pub mod courses;
pub mod csv_import;
pub mod demo;
pub mod embed_links;
pub mod error;
pub mod generate;
pub mod issues;
pub mod keys;
pub mod learner_import;
pub mod learners;
pub mod media;
pub mod members;
pub mod model;
pub mod offline_writer;
pub mod pdf;
pub mod plans;
pub mod resources;
pub mod scorm;
pub mod scorm_import;
pub mod scorm_manifest;
pub mod source_text;
pub mod store;
pub mod translate;
pub mod translations;
pub mod webhooks;
pub mod woff;

use std::path::Path;
use std::sync::Arc;

use kernel::Clock;
use platform::blobs::{BlobStore, DbBlobStore, FsBlobStore};
use platform::outbound::Outbound;
use platform::secrets::SecretKey;
use platform::{Db, DbError, Migrations};

pub use error::{CoursesError, CoursesResult, KeyRejection, Suspension, Throttle};
pub use issues::Issue;
pub use model::{
    Access, ApiKeyInfo, Completion, Course, CourseStatus, Identity, IssuedCertificate, ListItem, Resource,
    ResourceKind, Usage, Workspace, WorkspaceSummary,
};
pub use plans::{Feature, Plan};

use crate::store::Store;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The courses service's embedded migrations.
pub const MIGRATIONS: Migrations = Migrations { sqlite: &SQLITE_MIGRATIONS, postgres: &POSTGRES_MIGRATIONS };

/// The courses service's use cases over one store and one clock.
#[derive(Clone, Debug)]
pub struct Courses {
    store: Store,
    clock: Arc<dyn Clock>,
    outbound: Outbound,
    llm: Option<generate::LlmConfig>,
    /// Seals recoverable secrets at rest and keys the embed's visitor hash.
    secret_key: SecretKey,
    /// Requests per key per rolling minute (the seed's 120 unless the
    /// operator raises it).
    rate_limit: u32,
    /// How long the webhook sender leases a message it is sending.
    lease_ms: i64,
    /// The files of imported SCORM packages, content-addressed.
    blobs: Arc<dyn BlobStore>,
    /// The studio's public URL and mail, for invitations.
    members: members::MembersConfig,
    /// Members' password hashes (argon2id on the blocking pool, bounded).
    passwords: platform::passwords::Passwords,
}

impl Courses {
    /// Builds the service over an open, migrated database; package files
    /// go to the database's `blobs` table until [`Self::with_blobs`] says
    /// otherwise.
    pub fn new(db: Db, clock: Arc<dyn Clock>) -> Self {
        Self {
            blobs: Arc::new(DbBlobStore::new(db.clone())),
            store: Store::new(db),
            clock,
            outbound: Outbound::default(),
            llm: None,
            secret_key: SecretKey::generate(),
            rate_limit: access::RATE_LIMIT,
            lease_ms: webhooks::LEASE_MS,
            members: members::MembersConfig::default(),
            passwords: platform::passwords::Passwords::default(),
        }
    }

    /// Where mailed links point and how mail leaves (by default links to
    /// the default address and no mail).
    #[must_use]
    pub fn with_members(mut self, config: members::MembersConfig) -> Self {
        self.members = config;
        self
    }

    /// Requests per key per rolling minute (at least 1).
    #[must_use]
    pub fn with_rate_limit(mut self, per_minute: u32) -> Self {
        self.rate_limit = per_minute.max(1);
        self
    }

    /// The webhook sender's lease (tests shorten it to watch renewals).
    #[must_use]
    pub fn with_webhook_lease(mut self, lease: std::time::Duration) -> Self {
        self.lease_ms = i64::try_from(lease.as_millis()).unwrap_or(webhooks::LEASE_MS).max(3);
        self
    }

    /// The key that seals secrets at rest (by default a random key per
    /// process: a real service passes the one from `SVC_SECRET_KEY` or the
    /// data dir, shared by every node).
    #[must_use]
    pub fn with_secret_key(mut self, key: SecretKey) -> Self {
        self.secret_key = key;
        self
    }

    /// The client webhook messages go out through (by default the guard
    /// with no exceptions: public addresses only).
    #[must_use]
    pub fn with_outbound(mut self, outbound: Outbound) -> Self {
        self.outbound = outbound;
        self
    }

    /// Generates courses with this model endpoint instead of the built-in
    /// generator.
    #[must_use]
    pub fn with_llm(mut self, llm: Option<generate::LlmConfig>) -> Self {
        self.llm = llm;
        self
    }

    /// Where imported package files are kept.
    #[must_use]
    pub fn with_blobs(mut self, blobs: Arc<dyn BlobStore>) -> Self {
        self.blobs = blobs;
        self
    }

    /// Opens the store named by the configuration (PostgreSQL for a
    /// `postgres://` URL, else `courses.db` in `data_dir`) and migrates it.
    /// Package files live in `courses-blobs/` of the data dir beside a
    /// SQLite store and in the database with PostgreSQL, so every node of a
    /// multi-node deployment reads what any node imported.
    pub async fn open(database_url: Option<&str>, data_dir: &Path, clock: Arc<dyn Clock>) -> Result<Self, DbError> {
        let db = Db::open(database_url, &data_dir.join("courses.db")).await?;
        db.migrate(&MIGRATIONS).await?;
        let blobs: Arc<dyn BlobStore> = match db.backend() {
            platform::Backend::Sqlite => Arc::new(FsBlobStore::new(data_dir.join("courses-blobs"))),
            platform::Backend::Postgres => Arc::new(DbBlobStore::new(db.clone())),
        };
        Ok(Self::new(db, clock).with_blobs(blobs))
    }

    pub const fn store(&self) -> &Store {
        &self.store
    }

    pub fn db(&self) -> &Db {
        self.store.db()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }
}
