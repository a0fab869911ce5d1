//! The catalog's domain: a self-hosted audio library whose API is the
//! Spotify Web API. It owns the library scan (tags, decoding, analysis),
//! OAuth clients, users and grants, each user's library, follows,
//! playlists and listening history, and the store behind them.
//!
//! Every use case is one method of [`Catalog`]; the HTTP layer, the CLI and
//! the demo seeding all call these methods. This crate knows nothing about
//! HTTP or Spotify's JSON: it returns [`CatalogError`]s and domain types
//! that `catalog-http` maps to the wire in one place. It must not depend on
//! the hub's or the courses service's crates.

pub mod admin;
pub mod apps;
pub mod audio;
pub mod error;
pub mod ids;
pub mod library;
pub mod limits;
pub mod markets;
pub mod model;
pub mod oauth;
pub mod playback;
pub mod player;
pub mod playlists;
pub mod preview;
pub mod related;
pub mod scan;
pub mod scopes;
pub mod search;
pub mod spoken;
pub mod store;
pub mod stream;
pub mod synth;
pub mod transcode;

#[cfg(test)]
mod fuzz;

use std::path::Path;
use std::sync::Arc;

use kernel::Clock;
use platform::passwords::Passwords;
use platform::throttle::SignInThrottle;
use platform::{Db, DbError, Migrations};

pub use error::{CatalogError, CatalogResult, OAuthErrorKind, PlayerFailure, TokenRejection};
pub use ids::{ItemKind, ItemUri};
pub use model::{
    Access, Album, App, Artist, ArtistRef, Episode, Image, IssuedToken, Play, Playable, Playlist, PlaylistItem, Saved,
    Show, Slice, Track, User, Window,
};
pub use scopes::Scopes;

use crate::limits::{RateLimit, RateLimiter};
use crate::store::Store;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The catalog's embedded migrations.
pub const MIGRATIONS: Migrations = Migrations { sqlite: &SQLITE_MIGRATIONS, postgres: &POSTGRES_MIGRATIONS };

/// The catalog's use cases over one store and one clock.
#[derive(Clone, Debug)]
pub struct Catalog {
    store: Store,
    clock: Arc<dyn Clock>,
    limiter: Arc<RateLimiter>,
    /// Where the limits count (memory, Redis or PostgreSQL).
    shared_limits: platform::limiter::Limiter,
    /// Wakes devices waiting on this node when a playback changes.
    player_signal: Arc<tokio::sync::Notify>,
    /// The key that signs stream links, read from the store once.
    stream_key: Arc<tokio::sync::OnceCell<String>>,
    /// argon2id on the blocking pool behind a semaphore.
    passwords: Passwords,
    /// The markets the catalog serves (`SVC_CATALOG_MARKETS`).
    markets: Arc<markets::Markets>,
    /// The optional `ffmpeg` (decoding Opus and WavPack, transcoding streams).
    ffmpeg: Option<Arc<transcode::Ffmpeg>>,
    /// Password attempts per client address and per account.
    signin: Arc<SignInThrottle>,
    /// The last scan started from the administration page on this node.
    scan_slot: admin::ScanSlot,
    /// This process among the nodes sharing the store (random per start):
    /// the holder of the administration page's scan lease.
    node_id: Arc<str>,
}

impl Catalog {
    /// Builds the catalog over an open, migrated database.
    pub fn new(db: Db, clock: Arc<dyn Clock>) -> Self {
        Self {
            store: Store::new(db),
            clock,
            limiter: Arc::new(RateLimiter::new(RateLimit::default())),
            shared_limits: platform::limiter::Limiter::memory(),
            player_signal: Arc::new(tokio::sync::Notify::new()),
            stream_key: Arc::new(tokio::sync::OnceCell::new()),
            passwords: Passwords::default(),
            markets: Arc::new(markets::Markets::default()),
            ffmpeg: None,
            signin: Arc::new(SignInThrottle::default()),
            scan_slot: admin::ScanSlot::default(),
            node_id: Arc::from(hex::encode(uuid::Uuid::new_v4().as_bytes())),
        }
    }

    /// The same catalog with another sign-in throttle (tests use small limits).
    #[must_use]
    pub fn with_signin_throttle(mut self, throttle: SignInThrottle) -> Self {
        self.signin = Arc::new(throttle);
        self
    }

    /// The same catalog serving other markets.
    #[must_use]
    pub fn with_markets(mut self, markets: markets::Markets) -> Self {
        self.markets = Arc::new(markets);
        self
    }

    pub fn markets(&self) -> &markets::Markets {
        &self.markets
    }

    /// The same catalog using `ffmpeg` where its own decoders and browsers
    /// fall short (see [`transcode`]).
    #[must_use]
    pub fn with_ffmpeg(mut self, ffmpeg: Option<transcode::Ffmpeg>) -> Self {
        self.ffmpeg = ffmpeg.map(Arc::new);
        self
    }

    pub fn ffmpeg(&self) -> Option<&transcode::Ffmpeg> {
        self.ffmpeg.as_deref()
    }

    /// The same catalog with another rate limit per app.
    #[must_use]
    pub fn with_rate_limit(mut self, limit: RateLimit) -> Self {
        self.limiter = Arc::new(RateLimiter::new(limit).with_limiter(self.shared_limits.clone()));
        self
    }

    /// The same catalog counting its per-app limit and its sign-in throttle
    /// through `limiter` (shared by the nodes when it is Redis or PostgreSQL).
    #[must_use]
    pub fn with_limiter(mut self, limiter: platform::limiter::Limiter) -> Self {
        self.limiter = Arc::new(RateLimiter::new(self.limiter.limit()).with_limiter(limiter.clone()));
        self.signin = Arc::new(SignInThrottle::shared(&limiter, "signin"));
        self.shared_limits = limiter;
        self
    }

    pub fn rate_limit(&self) -> RateLimit {
        self.limiter.limit()
    }

    /// Opens the store named by the configuration (PostgreSQL for a
    /// `postgres://` URL, else `<data_dir>/catalog.db`) and migrates it.
    pub async fn open(database_url: Option<&str>, data_dir: &Path, clock: Arc<dyn Clock>) -> Result<Self, DbError> {
        let db = Db::open(database_url, &data_dir.join("catalog.db")).await?;
        db.migrate(&MIGRATIONS).await?;
        Ok(Self::new(db, clock))
    }

    pub fn db(&self) -> &Db {
        self.store.db()
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    pub const fn store(&self) -> &Store {
        &self.store
    }
}
