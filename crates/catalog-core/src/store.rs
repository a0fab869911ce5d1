//! The catalog's store: every method is one atomic unit of work.
//!
//! The SQL is written once in the subset SQLite and PostgreSQL share and runs
//! on either through `platform::with_db!`. Lists of ids use generated `$N`
//! placeholders (never string interpolation of values).

use std::collections::HashMap;

use kernel::{StoreError, Timestamp};
use platform::db::store_error;
use platform::{Db, with_db};
use sqlx::AssertSqlSafe;

use crate::model::{Album, Artist, ArtistRef, Image, Slice, Track, User, Window};
use crate::search::SearchQuery;

type StoreResult<T> = Result<T, StoreError>;

/// `$start, $start+1, ...` for `n` values.
/// Inserts an [`IssuedGrant`]'s two tokens on a transaction (one macro
/// because the transaction's type differs per database).
macro_rules! insert_grant {
    ($tx:expr, $grant:expr) => {{
        let grant: &IssuedGrant = $grant;
        let r = &grant.refresh;
        sqlx::query(
            "INSERT INTO refresh_tokens (token_hash, client_id, user_id, scope, created_at, family_id, family_created_at, last_used_at, pkce, confidential) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(&grant.refresh_hash)
        .bind(&r.client_id)
        .bind(&r.user_id)
        .bind(&r.scope)
        .bind(grant.now)
        .bind(&r.family_id)
        .bind(r.family_created_at)
        .bind(r.last_used_at)
        .bind(r.pkce)
        .bind(r.confidential)
        .execute($tx)
        .await
        .map_err(store_error)?;
        let a = &grant.access;
        sqlx::query(
            "INSERT INTO access_tokens (token_hash, client_id, user_id, scope, expires_at, family_id) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&grant.access_hash)
        .bind(&a.client_id)
        .bind(&a.user_id)
        .bind(&a.scope)
        .bind(a.expires_at)
        .bind(&a.family_id)
        .execute($tx)
        .await
        .map_err(store_error)?;
    }};
}

fn placeholders(start: usize, n: usize) -> String {
    (start..start + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n.max(0)).unwrap_or(0)
}

/// Popularity 0..100 from a play count: logarithmic, so a few plays register
/// and heavy rotation saturates.
pub fn popularity(plays: i64) -> u32 {
    let plays = f64::from(u32::try_from(plays.max(0)).unwrap_or(u32::MAX));
    // 100 at roughly 1000 plays.
    let value = ((plays + 1.0).log10() * 33.4).round().clamp(0.0, 100.0);
    // The clamp keeps the value in range, so the conversion is exact.
    format!("{value:.0}").parse().unwrap_or(0)
}

fn genres_of(raw: &str) -> Vec<String> {
    serde_json::from_str(raw).unwrap_or_default()
}

#[derive(sqlx::FromRow)]
struct TrackRow {
    id: String,
    album_id: String,
    name: String,
    disc_number: i64,
    track_number: i64,
    duration_ms: i64,
    explicit: bool,
    isrc: Option<String>,
    mime: String,
    plays: i64,
}

#[derive(sqlx::FromRow)]
struct AlbumRow {
    id: String,
    name: String,
    album_type: String,
    release_date: String,
    release_date_precision: String,
    label: Option<String>,
    genres: String,
    image_id: Option<String>,
    created_at: i64,
    total_tracks: i64,
    plays: i64,
}

#[derive(sqlx::FromRow)]
struct ArtistRow {
    id: String,
    name: String,
    genres: String,
    image_id: Option<String>,
    followers: i64,
    plays: i64,
}

#[derive(sqlx::FromRow)]
struct LinkRow {
    owner_id: String,
    artist_id: String,
    name: String,
}

#[derive(sqlx::FromRow)]
pub struct UserRow {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub password_hash: String,
    pub country: String,
    pub created_at: i64,
    /// An operator disabled the listener: no sign-in, no tokens for their apps.
    pub disabled: bool,
    pub followers: i64,
}

impl UserRow {
    pub fn into_user(self) -> User {
        User {
            id: self.id,
            username: self.username,
            display_name: self.display_name,
            country: self.country,
            followers: to_u64(self.followers),
            created_at: Timestamp::from_millis(self.created_at),
        }
    }
}

/// The administration page's scan: the lease on it and its progress.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ScanRunRow {
    /// The node that holds (or held) the lease.
    pub node: String,
    pub dir: String,
    pub started_at: i64,
    /// Unix milliseconds; a running scan whose lease lapsed has lost its node.
    pub lease_until: i64,
    pub finished: bool,
    pub error: Option<String>,
    /// The progress as JSON (`crate::scan::ScanProgress`).
    pub progress: String,
}

#[derive(sqlx::FromRow)]
pub struct AppRow {
    pub client_id: String,
    pub name: String,
    pub secret_hash: String,
    pub redirect_uris: String,
    /// The listener who made it on the developer page; `None` for apps the
    /// operator made with the CLI.
    pub owner_id: Option<String>,
    /// The flows it may use, comma-separated (see `crate::apps::Flow`).
    pub flows: String,
    pub created_at: i64,
}

#[derive(sqlx::FromRow)]
pub struct CodeRow {
    pub client_id: String,
    pub user_id: String,
    pub redirect_uri: String,
    pub scope: String,
    pub code_challenge: Option<String>,
    pub expires_at: i64,
    /// When the code was exchanged (it is kept, marked, to detect replays).
    pub used_at: Option<i64>,
    /// The refresh-token family its exchange started.
    pub family_id: Option<String>,
}

#[derive(sqlx::FromRow)]
pub struct TokenRow {
    pub client_id: String,
    pub user_id: Option<String>,
    pub scope: String,
    pub expires_at: i64,
    /// The refresh-token family it was issued under (none for app tokens).
    pub family_id: Option<String>,
}

#[derive(sqlx::FromRow)]
pub struct RefreshRow {
    pub client_id: String,
    pub user_id: String,
    pub scope: String,
    pub family_id: String,
    pub family_created_at: i64,
    pub last_used_at: i64,
    /// Set once the token was exchanged for its successor.
    pub rotated_at: Option<i64>,
    /// The family began with a PKCE code.
    pub pkce: bool,
    /// The client proved its secret when the family began.
    pub confidential: bool,
}

/// A refresh token and an access token issued together (a code exchange or
/// a rotation), written in one transaction.
pub struct IssuedGrant {
    pub now: i64,
    pub refresh_hash: String,
    pub refresh: RefreshRow,
    pub access_hash: String,
    pub access: TokenRow,
}

/// The cut-off times of [`Store::prune_tokens`], in epoch milliseconds.
pub struct GrantExpiry {
    pub idle_before: i64,
    pub started_before: i64,
    pub codes_before: i64,
}

#[derive(sqlx::FromRow)]
pub struct FileStateRow {
    pub id: String,
    pub file_size: i64,
    pub file_mtime: i64,
    pub has_features: bool,
}

#[derive(sqlx::FromRow)]
pub struct TrackFileRow {
    pub path: String,
    pub mime: String,
    pub duration_ms: i64,
}

#[derive(sqlx::FromRow)]
struct IdAt {
    item_id: String,
    added_at: i64,
}

#[derive(sqlx::FromRow)]
pub struct PlaylistRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub description: Option<String>,
    pub public: bool,
    pub collaborative: bool,
    pub version: i64,
    pub image_id: Option<String>,
    pub total_items: i64,
    pub followers: i64,
}

#[derive(sqlx::FromRow)]
pub struct PlaylistItemRow {
    /// Exactly one of `track_id` and `episode_id` is set (a table constraint).
    pub track_id: Option<String>,
    pub episode_id: Option<String>,
    pub added_by: String,
    pub added_at: i64,
}

impl PlaylistItemRow {
    /// The track's or the episode's id (ids of the two kinds never collide).
    pub fn item_id(&self) -> &str {
        self.track_id.as_deref().or(self.episode_id.as_deref()).unwrap_or_default()
    }
}

#[derive(sqlx::FromRow)]
pub struct PlayRow {
    pub track_id: String,
    pub played_at: i64,
    pub context_uri: Option<String>,
}

#[derive(sqlx::FromRow)]
struct ImageRow {
    id: String,
    mime: String,
    width: Option<i64>,
    height: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct Count {
    n: i64,
}

#[derive(sqlx::FromRow)]
struct IdRow {
    id: String,
}

/// What a scan writes for one file.
#[derive(Clone, Debug)]
pub struct TrackUpsert {
    pub track_id: String,
    pub album: AlbumUpsert,
    pub artists: Vec<(String, String)>,
    pub name: String,
    pub disc_number: u32,
    pub track_number: u32,
    pub duration_ms: u64,
    /// From the file's parental-advisory tag (see `scan::advisory_is_explicit`).
    pub explicit: bool,
    pub isrc: Option<String>,
    pub genre: Option<String>,
    pub year: Option<i64>,
    pub path: String,
    pub file_size: u64,
    pub file_mtime: i64,
    pub mime: String,
    pub features: Option<String>,
    pub analysis: Option<String>,
    pub now: Timestamp,
}

#[derive(Clone, Debug)]
pub struct AlbumUpsert {
    pub id: String,
    pub key: String,
    pub name: String,
    pub album_type: String,
    pub release_date: String,
    pub release_date_precision: String,
    pub label: Option<String>,
    pub genres: Vec<String>,
    pub artists: Vec<(String, String)>,
    pub image: Option<(String, String, Vec<u8>)>,
}

const TRACK_SELECT: &str = "SELECT t.id, t.album_id, t.name, t.disc_number, t.track_number, t.duration_ms, t.explicit, t.isrc, t.mime, \
     (SELECT COUNT(*) FROM plays p WHERE p.track_id = t.id) AS plays FROM tracks t";

const ALBUM_SELECT: &str = "SELECT a.id, a.name, a.album_type, a.release_date, a.release_date_precision, a.label, a.genres, a.image_id, a.created_at, \
     (SELECT COUNT(*) FROM tracks t WHERE t.album_id = a.id) AS total_tracks, \
     (SELECT COUNT(*) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.album_id = a.id) AS plays FROM albums a";

const ARTIST_SELECT: &str = "SELECT r.id, r.name, r.genres, \
     (SELECT a.image_id FROM albums a JOIN album_artists aa ON aa.album_id = a.id WHERE aa.artist_id = r.id AND a.image_id IS NOT NULL ORDER BY a.release_date DESC LIMIT 1) AS image_id, \
     (SELECT COUNT(*) FROM saved_items s WHERE s.item_type = 'artist' AND s.item_id = r.id) AS followers, \
     (SELECT COUNT(*) FROM plays p JOIN track_artists ta ON ta.track_id = p.track_id WHERE ta.artist_id = r.id) AS plays FROM artists r";

const USER_SELECT: &str = "SELECT u.id, u.username, u.display_name, u.password_hash, u.country, u.created_at, u.disabled, \
     (SELECT COUNT(*) FROM saved_items s WHERE s.item_type = 'user' AND s.item_id = u.id) AS followers FROM users u";

const PLAYLIST_SELECT: &str = "SELECT l.id, l.owner_id, l.name, l.description, l.public, l.collaborative, l.version, l.image_id, \
     (SELECT COUNT(*) FROM playlist_items i WHERE i.playlist_id = l.id) AS total_items, \
     (SELECT COUNT(*) FROM saved_items s WHERE s.item_type = 'playlist' AND s.item_id = l.id AND s.user_id <> l.owner_id) AS followers FROM playlists l";

/// What playlist search matches: the name and description, lowercased.
fn playlist_search_text(name: &str, description: Option<&str>) -> String {
    format!("{} {}", name, description.unwrap_or_default()).to_lowercase()
}

/// Runs a dynamic `query_as` with string binds on either backend.
macro_rules! fetch_all_binds {
    ($db:expr, $row:ty, $sql:expr, $binds:expr) => {{
        let sql: String = $sql;
        let binds: &[String] = $binds;
        with_db!($db, |pool| {
            let mut q = sqlx::query_as::<_, $row>(AssertSqlSafe(sql));
            for b in binds {
                q = q.bind(b);
            }
            q.fetch_all(pool).await.map_err(store_error)
        })
    }};
}

/// The catalog's store over one database.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
}

impl Store {
    pub const fn new(db: Db) -> Self {
        Self { db }
    }

    pub const fn db(&self) -> &Db {
        &self.db
    }

    // ----- users and apps -------------------------------------------------

    pub async fn insert_user(&self, user: &User, password_hash: &str) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO users (id, username, display_name, password_hash, country, created_at) VALUES ($1, $2, $3, $4, $5, $6)"
        )
        .bind(&user.id)
        .bind(&user.username)
        .bind(&user.display_name)
        .bind(password_hash)
        .bind(&user.country)
        .bind(user.created_at.as_millis())
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    pub async fn user_by(&self, column: UserKey, value: &str) -> StoreResult<Option<UserRow>> {
        let sql = match column {
            UserKey::Id => format!("{USER_SELECT} WHERE u.id = $1"),
            UserKey::Username => format!("{USER_SELECT} WHERE u.username = $1"),
        };
        Ok(fetch_all_binds!(&self.db, UserRow, sql, &[value.to_owned()])?.into_iter().next())
    }

    /// Whether the user administers the library.
    pub async fn is_operator(&self, user_id: &str) -> StoreResult<bool> {
        let row: Option<(bool,)> =
            with_db!(&self.db, |pool| sqlx::query_as("SELECT is_operator FROM users WHERE id = $1")
                .bind(user_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error))?;
        Ok(row.is_some_and(|(yes,)| yes))
    }

    /// Makes the user an operator; false when there is no such user.
    pub async fn set_operator(&self, user_id: &str) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query("UPDATE users SET is_operator = TRUE WHERE id = $1")
            .bind(user_id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected() == 1)
            .map_err(store_error))
    }

    /// Disables or enables a listener; disabling also revokes every code
    /// and token issued to them or to their apps, in one transaction. False
    /// when there is no such user.
    pub async fn set_user_disabled(&self, user_id: &str, disabled: bool) -> StoreResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let changed = sqlx::query("UPDATE users SET disabled = $2 WHERE id = $1")
                .bind(user_id)
                .bind(disabled)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if changed != 1 {
                return Ok(false);
            }
            if disabled {
                for table in ["access_tokens", "refresh_tokens", "auth_codes"] {
                    let sql = format!(
                        "DELETE FROM {table} WHERE user_id = $1 OR client_id IN (SELECT client_id FROM apps WHERE owner_id = $1)"
                    );
                    sqlx::query(AssertSqlSafe(sql)).bind(user_id).execute(&mut *tx).await.map_err(store_error)?;
                }
            }
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    /// Deletes a listener with everything that is theirs, in one
    /// transaction: their apps (`apps.owner_id` has no foreign key; the
    /// apps' codes and tokens cascade from them), then the user (the
    /// foreign keys cascade: tokens, playlists, library, devices, plays).
    /// False when there is no such user.
    pub async fn delete_user(&self, user_id: &str) -> StoreResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM apps WHERE owner_id = $1")
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let deleted = sqlx::query("DELETE FROM users WHERE id = $1")
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if deleted != 1 {
                return Ok(false);
            }
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    /// The first `limit` users by name.
    pub async fn users_by_name(&self, limit: i64) -> StoreResult<Vec<UserRow>> {
        let sql = format!("{USER_SELECT} ORDER BY u.username LIMIT {limit}");
        fetch_all_binds!(&self.db, UserRow, sql, &[])
    }

    pub async fn user_count(&self) -> StoreResult<u64> {
        let row: Count = with_db!(&self.db, |pool| sqlx::query_as("SELECT COUNT(*) AS n FROM users")
            .fetch_one(pool)
            .await
            .map_err(store_error))?;
        Ok(to_u64(row.n))
    }

    pub async fn insert_app(&self, app: &AppRow, now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| sqlx::query(
            "INSERT INTO apps (client_id, name, secret_hash, redirect_uris, owner_id, flows, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)"
        )
        .bind(&app.client_id)
        .bind(&app.name)
        .bind(&app.secret_hash)
        .bind(&app.redirect_uris)
        .bind(&app.owner_id)
        .bind(&app.flows)
        .bind(now.as_millis())
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error))
    }

    pub async fn set_app_redirect_uris(&self, client_id: &str, uris_json: &str) -> StoreResult<()> {
        with_db!(&self.db, |pool| sqlx::query("UPDATE apps SET redirect_uris = $1 WHERE client_id = $2")
            .bind(uris_json)
            .bind(client_id)
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error))
    }

    pub async fn app(&self, client_id: &str) -> StoreResult<Option<AppRow>> {
        with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT client_id, name, secret_hash, redirect_uris, owner_id, flows, created_at FROM apps WHERE client_id = $1 \
             AND (owner_id IS NULL OR owner_id NOT IN (SELECT id FROM users WHERE disabled))"
        )
        .bind(client_id)
        .fetch_optional(pool)
        .await
        .map_err(store_error)
        })
    }

    /// The apps `owner` made, oldest first.
    pub async fn apps_of(&self, owner: &str) -> StoreResult<Vec<AppRow>> {
        with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT client_id, name, secret_hash, redirect_uris, owner_id, flows, created_at FROM apps \
             WHERE owner_id = $1 ORDER BY created_at, client_id"
        )
        .bind(owner)
        .fetch_all(pool)
        .await
        .map_err(store_error))
    }

    /// Replaces the secret of `owner`'s app; false when they have no such app.
    pub async fn set_app_secret(&self, client_id: &str, owner: &str, secret_hash: &str) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query(
            "UPDATE apps SET secret_hash = $1 WHERE client_id = $2 AND owner_id = $3"
        )
        .bind(secret_hash)
        .bind(client_id)
        .bind(owner)
        .execute(pool)
        .await
        .map(|done| done.rows_affected() == 1)
        .map_err(store_error))
    }

    /// Changes the name, redirect URIs and flows of `owner`'s app; false
    /// when they have no such app.
    pub async fn update_app(
        &self,
        client_id: &str,
        owner: &str,
        name: &str,
        uris_json: &str,
        flows: &str,
    ) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query(
            "UPDATE apps SET name = $1, redirect_uris = $2, flows = $3 WHERE client_id = $4 AND owner_id = $5"
        )
        .bind(name)
        .bind(uris_json)
        .bind(flows)
        .bind(client_id)
        .bind(owner)
        .execute(pool)
        .await
        .map(|done| done.rows_affected() == 1)
        .map_err(store_error))
    }

    /// Deletes `owner`'s app with its codes and tokens (the foreign keys
    /// cascade); false when they have no such app.
    pub async fn delete_app(&self, client_id: &str, owner: &str) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query("DELETE FROM apps WHERE client_id = $1 AND owner_id = $2")
            .bind(client_id)
            .bind(owner)
            .execute(pool)
            .await
            .map(|done| done.rows_affected() == 1)
            .map_err(store_error))
    }

    // ----- the administration page's scan ---------------------------------

    /// Claims the one scan for `run.node`: true when no scan ran, the last
    /// one finished, or its node's lease lapsed before `now`; false (and
    /// nothing changed) while another holds it. One statement, so two nodes
    /// claiming at once cannot both win.
    pub async fn claim_scan(&self, run: &ScanRunRow, now: Timestamp) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query(
            "INSERT INTO scan_runs (id, node, dir, started_at, lease_until, finished, error, progress) \
             VALUES (1, $1, $2, $3, $4, FALSE, NULL, $5) \
             ON CONFLICT (id) DO UPDATE SET node = excluded.node, dir = excluded.dir, \
             started_at = excluded.started_at, lease_until = excluded.lease_until, finished = FALSE, \
             error = NULL, progress = excluded.progress \
             WHERE scan_runs.finished OR scan_runs.lease_until < $6"
        )
        .bind(&run.node)
        .bind(&run.dir)
        .bind(run.started_at)
        .bind(run.lease_until)
        .bind(&run.progress)
        .bind(now.as_millis())
        .execute(pool)
        .await
        .map(|done| done.rows_affected() == 1)
        .map_err(store_error))
    }

    /// Records the progress of the scan `node` started at `started_at` and
    /// renews its lease; a node that lost its lease writes nothing.
    pub async fn save_scan(&self, run: &ScanRunRow) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query(
            "UPDATE scan_runs SET progress = $1, finished = $2, error = $3, lease_until = $4 \
             WHERE id = 1 AND node = $5 AND started_at = $6"
        )
        .bind(&run.progress)
        .bind(run.finished)
        .bind(&run.error)
        .bind(run.lease_until)
        .bind(&run.node)
        .bind(run.started_at)
        .execute(pool)
        .await
        .map(|done| done.rows_affected() == 1)
        .map_err(store_error))
    }

    /// The last scan started from the administration page on any node.
    pub async fn scan_run(&self) -> StoreResult<Option<ScanRunRow>> {
        with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT node, dir, started_at, lease_until, finished, error, progress FROM scan_runs WHERE id = 1"
        )
        .fetch_optional(pool)
        .await
        .map_err(store_error))
    }

    // ----- OAuth grants ---------------------------------------------------

    pub async fn insert_code(&self, code_hash: &str, row: &CodeRow) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO auth_codes (code_hash, client_id, user_id, redirect_uri, scope, code_challenge, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        )
        .bind(code_hash)
        .bind(&row.client_id)
        .bind(&row.user_id)
        .bind(&row.redirect_uri)
        .bind(&row.scope)
        .bind(&row.code_challenge)
        .bind(row.expires_at)
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    /// Reads a code without consuming it, so every check can run first.
    pub async fn code(&self, code_hash: &str) -> StoreResult<Option<CodeRow>> {
        with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT client_id, user_id, redirect_uri, scope, code_challenge, expires_at, used_at, family_id FROM auth_codes WHERE code_hash = $1"
        )
        .bind(code_hash)
        .fetch_optional(pool)
        .await
        .map_err(store_error)
        })
    }

    /// Marks the code used and issues the first refresh and access token of
    /// its family, in one transaction. `false` when the code was already
    /// used (a replay, also under a race): nothing is issued.
    pub async fn redeem_code(&self, code_hash: &str, grant: &IssuedGrant) -> StoreResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let marked = sqlx::query(
                "UPDATE auth_codes SET used_at = $2, family_id = $3 WHERE code_hash = $1 AND used_at IS NULL",
            )
            .bind(code_hash)
            .bind(grant.now)
            .bind(&grant.refresh.family_id)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            if marked != 1 {
                return Ok(false);
            }
            insert_grant!(&mut *tx, grant);
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    pub async fn insert_access_token(&self, token_hash: &str, row: &TokenRow) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO access_tokens (token_hash, client_id, user_id, scope, expires_at, family_id) VALUES ($1, $2, $3, $4, $5, $6)"
        )
        .bind(token_hash)
        .bind(&row.client_id)
        .bind(&row.user_id)
        .bind(&row.scope)
        .bind(row.expires_at)
        .bind(&row.family_id)
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    pub async fn access_token(&self, token_hash: &str) -> StoreResult<Option<TokenRow>> {
        with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT client_id, user_id, scope, expires_at, family_id FROM access_tokens WHERE token_hash = $1"
        )
        .bind(token_hash)
        .fetch_optional(pool)
        .await
        .map_err(store_error))
    }

    /// Removes access tokens that expired before `now`, refresh-token
    /// families idle since `idle_before` or started before `started_before`,
    /// and codes that expired before `codes_before`.
    pub async fn prune_tokens(&self, now: Timestamp, expiry: &GrantExpiry) -> StoreResult<u64> {
        with_db!(&self.db, |pool| {
            let mut removed = sqlx::query("DELETE FROM access_tokens WHERE expires_at < $1")
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map_err(store_error)?
                .rows_affected();
            // A family ends with its newest token: idle or too old, every
            // token of it (rotated ones included) and its access tokens go.
            let ended: Vec<(String,)> = sqlx::query_as(
                "SELECT family_id FROM refresh_tokens WHERE rotated_at IS NULL AND (last_used_at < $1 OR family_created_at < $2)",
            )
            .bind(expiry.idle_before)
            .bind(expiry.started_before)
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            for (family,) in ended {
                removed += sqlx::query("DELETE FROM refresh_tokens WHERE family_id = $1")
                    .bind(&family)
                    .execute(pool)
                    .await
                    .map_err(store_error)?
                    .rows_affected();
                removed += sqlx::query("DELETE FROM access_tokens WHERE family_id = $1")
                    .bind(&family)
                    .execute(pool)
                    .await
                    .map_err(store_error)?
                    .rows_affected();
            }
            removed += sqlx::query("DELETE FROM auth_codes WHERE expires_at < $1")
                .bind(expiry.codes_before)
                .execute(pool)
                .await
                .map_err(store_error)?
                .rows_affected();
            Ok(removed)
        })
    }

    pub async fn refresh_token(&self, token_hash: &str) -> StoreResult<Option<RefreshRow>> {
        with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT client_id, user_id, scope, family_id, family_created_at, last_used_at, rotated_at, pkce, confidential FROM refresh_tokens WHERE token_hash = $1"
        )
        .bind(token_hash)
        .fetch_optional(pool)
        .await
        .map_err(store_error)
        })
    }

    /// Rotates a refresh token: marks `old_hash` rotated and issues the next
    /// token of its family with an access token, in one transaction.
    /// `false` when the old token was already rotated (reuse, also under a
    /// race): nothing is issued.
    pub async fn rotate_refresh_token(&self, old_hash: &str, grant: &IssuedGrant) -> StoreResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let marked =
                sqlx::query("UPDATE refresh_tokens SET rotated_at = $2 WHERE token_hash = $1 AND rotated_at IS NULL")
                    .bind(old_hash)
                    .bind(grant.now)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?
                    .rows_affected();
            if marked != 1 {
                return Ok(false);
            }
            insert_grant!(&mut *tx, grant);
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    /// Revokes a family: every refresh token of it and every access token
    /// issued under it.
    pub async fn revoke_family(&self, family_id: &str) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM refresh_tokens WHERE family_id = $1")
                .bind(family_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM access_tokens WHERE family_id = $1")
                .bind(family_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    // ----- library scan ---------------------------------------------------

    pub async fn file_state(&self, path: &str) -> StoreResult<Option<FileStateRow>> {
        with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT id, file_size, file_mtime, (features IS NOT NULL) AS has_features FROM tracks WHERE path = $1 \
             UNION ALL SELECT id, file_size, file_mtime, TRUE AS has_features FROM episodes WHERE path = $1"
        )
        .bind(path)
        .fetch_optional(pool)
        .await
        .map_err(store_error))
    }

    pub async fn track_file(&self, track_id: &str) -> StoreResult<Option<TrackFileRow>> {
        // Episodes and chapters stream like tracks.
        with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT path, mime, duration_ms FROM tracks WHERE id = $1 UNION ALL SELECT path, mime, duration_ms FROM episodes WHERE id = $1"
        )
        .bind(track_id)
        .fetch_optional(pool)
        .await
        .map_err(store_error)
        })
    }

    /// Writes one scanned file: its artists, album (with artwork) and track,
    /// in one transaction.
    pub async fn upsert_track(&self, t: &TrackUpsert) -> StoreResult<()> {
        let search = [t.name.as_str(), t.album.name.as_str()]
            .into_iter()
            .chain(t.artists.iter().map(|(_, n)| n.as_str()))
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        // One name a line, so an `artist:` phrase cannot span two names.
        let artist_text = t.artists.iter().map(|(_, n)| n.to_lowercase()).collect::<Vec<_>>().join("\n");
        let album_search = [t.album.name.as_str()]
            .into_iter()
            .chain(t.album.artists.iter().map(|(_, n)| n.as_str()))
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        let genres = serde_json::to_string(&t.album.genres).unwrap_or_else(|_| "[]".to_owned());
        let now = t.now.as_millis();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for (id, name) in t.artists.iter().chain(&t.album.artists) {
                sqlx::query(
                    "INSERT INTO artists (id, name, name_key, genres, created_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (id) DO UPDATE SET genres = CASE WHEN artists.genres = '[]' THEN excluded.genres ELSE artists.genres END",
                )
                .bind(id)
                .bind(name)
                .bind(name.to_lowercase())
                .bind(&genres)
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            let image_id = match &t.album.image {
                Some((id, mime, data)) => {
                    sqlx::query("INSERT INTO images (id, mime, data) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING")
                        .bind(id)
                        .bind(mime)
                        .bind(data.as_slice())
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?;
                    Some(id.clone())
                }
                None => None,
            };
            sqlx::query(
                "INSERT INTO albums (id, name, album_key, album_type, release_date, release_date_precision, label, genres, image_id, search_text, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, album_type = excluded.album_type, release_date = excluded.release_date, \
                 release_date_precision = excluded.release_date_precision, label = COALESCE(excluded.label, albums.label), \
                 genres = excluded.genres, image_id = COALESCE(excluded.image_id, albums.image_id), search_text = excluded.search_text",
            )
            .bind(&t.album.id)
            .bind(&t.album.name)
            .bind(&t.album.key)
            .bind(&t.album.album_type)
            .bind(&t.album.release_date)
            .bind(&t.album.release_date_precision)
            .bind(&t.album.label)
            .bind(&genres)
            .bind(&image_id)
            .bind(&album_search)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            for (position, (artist_id, _)) in t.album.artists.iter().enumerate() {
                sqlx::query("INSERT INTO album_artists (album_id, artist_id, position) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                    .bind(&t.album.id)
                    .bind(artist_id)
                    .bind(i64::try_from(position).unwrap_or(0))
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            sqlx::query(
                "INSERT INTO tracks (id, album_id, name, disc_number, track_number, duration_ms, explicit, isrc, genre, year, path, file_size, file_mtime, mime, features, analysis, search_text, artist_text, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $19, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
                 ON CONFLICT (id) DO UPDATE SET album_id = excluded.album_id, name = excluded.name, disc_number = excluded.disc_number, \
                 track_number = excluded.track_number, duration_ms = excluded.duration_ms, explicit = excluded.explicit, isrc = excluded.isrc, genre = excluded.genre, \
                 year = excluded.year, file_size = excluded.file_size, file_mtime = excluded.file_mtime, mime = excluded.mime, \
                 features = COALESCE(excluded.features, tracks.features), analysis = COALESCE(excluded.analysis, tracks.analysis), \
                 search_text = excluded.search_text, artist_text = excluded.artist_text",
            )
            .bind(&t.track_id)
            .bind(&t.album.id)
            .bind(&t.name)
            .bind(i64::from(t.disc_number))
            .bind(i64::from(t.track_number))
            .bind(to_i64(t.duration_ms))
            .bind(&t.isrc)
            .bind(&t.genre)
            .bind(t.year)
            .bind(&t.path)
            .bind(to_i64(t.file_size))
            .bind(t.file_mtime)
            .bind(&t.mime)
            .bind(&t.features)
            .bind(&t.analysis)
            .bind(&search)
            .bind(&artist_text)
            .bind(now)
            .bind(t.explicit)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query("DELETE FROM episodes WHERE path = $1")
                .bind(&t.path)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM track_artists WHERE track_id = $1")
                .bind(&t.track_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            for (position, (artist_id, _)) in t.artists.iter().enumerate() {
                sqlx::query("INSERT INTO track_artists (track_id, artist_id, position) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                    .bind(&t.track_id)
                    .bind(artist_id)
                    .bind(i64::try_from(position).unwrap_or(0))
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)
        })
    }

    /// Paths of every track whose file lives under `prefix`.
    pub async fn paths_under(&self, prefix: &str) -> StoreResult<Vec<(String, String)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            path: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT id, path FROM tracks UNION ALL SELECT id, path FROM episodes"
        )
        .fetch_all(pool)
        .await
        .map_err(store_error))?;
        Ok(rows.into_iter().filter(|r| r.path.starts_with(prefix)).map(|r| (r.id, r.path)).collect())
    }

    /// Removes tracks (files gone) and then albums and artists left empty.
    pub async fn remove_tracks(&self, ids: &[String]) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for id in ids {
                sqlx::query("DELETE FROM tracks WHERE id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                sqlx::query("DELETE FROM episodes WHERE id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            sqlx::query("DELETE FROM shows WHERE NOT EXISTS (SELECT 1 FROM episodes e WHERE e.show_id = shows.id)")
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM albums WHERE NOT EXISTS (SELECT 1 FROM tracks t WHERE t.album_id = albums.id)")
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "DELETE FROM artists WHERE NOT EXISTS (SELECT 1 FROM track_artists ta WHERE ta.artist_id = artists.id) \
                 AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.artist_id = artists.id)",
            )
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    /// After a scan that changed the library: SQLite merges each FTS5
    /// index into one segment. A scan writes a file a transaction, and FTS5
    /// keeps the small segments those leave behind until they add up, so a
    /// query reads several b-trees per trigram (about a third of a search's
    /// time at 100,000 tracks, measured; merging them takes 0.4 s).
    /// PostgreSQL's GIN indexes need nothing here.
    pub async fn optimize_search_index(&self) -> StoreResult<()> {
        if let Db::Sqlite(pool) = &self.db {
            // Table names from this fixed list only.
            for table in ["tracks_fts", "albums_fts", "artists_fts", "shows_fts", "episodes_fts"] {
                sqlx::query(AssertSqlSafe(format!("INSERT INTO {table}({table}) VALUES ('optimize')")))
                    .execute(pool)
                    .await
                    .map_err(store_error)?;
            }
        }
        Ok(())
    }

    pub async fn track_count(&self) -> StoreResult<u64> {
        let row: Count = with_db!(&self.db, |pool| sqlx::query_as("SELECT COUNT(*) AS n FROM tracks")
            .fetch_one(pool)
            .await
            .map_err(store_error))?;
        Ok(to_u64(row.n))
    }

    // ----- catalog reads --------------------------------------------------

    async fn artist_links(
        &self,
        table: &str,
        owner: &str,
        ids: &[String],
    ) -> StoreResult<HashMap<String, Vec<ArtistRef>>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let sql = format!(
            "SELECT l.{owner} AS owner_id, r.id AS artist_id, r.name FROM {table} l JOIN artists r ON r.id = l.artist_id \
             WHERE l.{owner} IN ({}) ORDER BY l.position",
            placeholders(1, ids.len())
        );
        let rows = fetch_all_binds!(&self.db, LinkRow, sql, ids)?;
        let mut map: HashMap<String, Vec<ArtistRef>> = HashMap::new();
        for row in rows {
            map.entry(row.owner_id).or_default().push(ArtistRef { id: row.artist_id, name: row.name });
        }
        Ok(map)
    }

    /// Albums by id, in the order asked; unknown ids are `None`.
    pub async fn albums(&self, ids: &[String]) -> StoreResult<Vec<Option<Album>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!("{ALBUM_SELECT} WHERE a.id IN ({})", placeholders(1, ids.len()));
        let rows = fetch_all_binds!(&self.db, AlbumRow, sql, ids)?;
        let mut links = self.artist_links("album_artists", "album_id", ids).await?;
        let by_id: HashMap<String, Album> = rows
            .into_iter()
            .map(|r| {
                let artists = links.remove(&r.id).unwrap_or_default();
                let album = Album {
                    id: r.id.clone(),
                    name: r.name,
                    album_type: r.album_type,
                    release_date: r.release_date,
                    release_date_precision: r.release_date_precision,
                    label: r.label,
                    genres: genres_of(&r.genres),
                    image_id: r.image_id,
                    artists,
                    total_tracks: to_u32(r.total_tracks),
                    popularity: popularity(r.plays),
                    created_at: Timestamp::from_millis(r.created_at),
                };
                (r.id, album)
            })
            .collect();
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    /// Tracks by id, in the order asked; unknown ids are `None`.
    pub async fn tracks(&self, ids: &[String]) -> StoreResult<Vec<Option<Track>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!("{TRACK_SELECT} WHERE t.id IN ({})", placeholders(1, ids.len()));
        let rows = fetch_all_binds!(&self.db, TrackRow, sql, ids)?;
        let mut album_ids: Vec<String> = rows.iter().map(|r| r.album_id.clone()).collect();
        album_ids.sort();
        album_ids.dedup();
        let albums: HashMap<String, Album> =
            self.albums(&album_ids).await?.into_iter().flatten().map(|a| (a.id.clone(), a)).collect();
        let track_ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        let mut links = self.artist_links("track_artists", "track_id", &track_ids).await?;
        let by_id: HashMap<String, Track> = rows
            .into_iter()
            .filter_map(|r| {
                let album = albums.get(&r.album_id)?.clone();
                let artists = links.remove(&r.id).unwrap_or_default();
                Some((
                    r.id.clone(),
                    Track {
                        id: r.id,
                        name: r.name,
                        album,
                        artists,
                        disc_number: to_u32(r.disc_number),
                        track_number: to_u32(r.track_number),
                        duration_ms: to_u64(r.duration_ms),
                        explicit: r.explicit,
                        isrc: r.isrc,
                        mime: r.mime,
                        popularity: popularity(r.plays),
                    },
                ))
            })
            .collect();
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    /// Artists by id, in the order asked; unknown ids are `None`.
    pub async fn artists(&self, ids: &[String]) -> StoreResult<Vec<Option<Artist>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!("{ARTIST_SELECT} WHERE r.id IN ({})", placeholders(1, ids.len()));
        let rows = fetch_all_binds!(&self.db, ArtistRow, sql, ids)?;
        let by_id: HashMap<String, Artist> = rows
            .into_iter()
            .map(|r| {
                (
                    r.id.clone(),
                    Artist {
                        id: r.id,
                        name: r.name,
                        genres: genres_of(&r.genres),
                        image_id: r.image_id,
                        followers: to_u64(r.followers),
                        popularity: popularity(r.plays),
                    },
                )
            })
            .collect();
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    /// A page of ids from `sql` (which selects `id` and takes `binds`), with
    /// the total from `count_sql` over the same binds.
    async fn id_page(
        &self,
        sql: &str,
        count_sql: &str,
        binds: &[String],
        window: Window,
    ) -> StoreResult<Slice<String>> {
        let paged = format!("{sql} LIMIT {} OFFSET {}", window.limit, window.offset);
        let ids: Vec<IdRow> = fetch_all_binds!(&self.db, IdRow, paged, binds)?;
        let total: Vec<Count> = fetch_all_binds!(&self.db, Count, count_sql.to_owned(), binds)?;
        Ok(Slice { items: ids.into_iter().map(|r| r.id).collect(), total: total.first().map_or(0, |c| to_u64(c.n)) })
    }

    pub async fn album_track_ids(&self, album_id: &str, window: Window) -> StoreResult<Slice<String>> {
        self.id_page(
            "SELECT id FROM tracks WHERE album_id = $1 ORDER BY disc_number, track_number, name",
            "SELECT COUNT(*) AS n FROM tracks WHERE album_id = $1",
            &[album_id.to_owned()],
            window,
        )
        .await
    }

    pub async fn artist_album_ids(&self, artist_id: &str, window: Window) -> StoreResult<Slice<String>> {
        self.id_page(
            "SELECT a.id FROM albums a WHERE EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = a.id AND aa.artist_id = $1) \
             OR EXISTS (SELECT 1 FROM tracks t JOIN track_artists ta ON ta.track_id = t.id WHERE t.album_id = a.id AND ta.artist_id = $1) \
             ORDER BY a.release_date DESC, a.name",
            "SELECT COUNT(*) AS n FROM albums a WHERE EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = a.id AND aa.artist_id = $1) \
             OR EXISTS (SELECT 1 FROM tracks t JOIN track_artists ta ON ta.track_id = t.id WHERE t.album_id = a.id AND ta.artist_id = $1)",
            &[artist_id.to_owned()],
            window,
        )
        .await
    }

    /// The artist's tracks, most played first.
    pub async fn artist_top_track_ids(&self, artist_id: &str, limit: u32) -> StoreResult<Vec<String>> {
        let sql = format!(
            "SELECT t.id FROM tracks t JOIN track_artists ta ON ta.track_id = t.id WHERE ta.artist_id = $1 \
             ORDER BY (SELECT COUNT(*) FROM plays p WHERE p.track_id = t.id) DESC, t.name LIMIT {limit}"
        );
        Ok(fetch_all_binds!(&self.db, IdRow, sql, &[artist_id.to_owned()])?.into_iter().map(|r| r.id).collect())
    }

    /// Each artist's analysed tracks' feature JSON (related artists' sound).
    pub async fn artist_features(&self) -> StoreResult<Vec<(String, String)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            artist_id: String,
            features: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT ta.artist_id, t.features FROM track_artists ta JOIN tracks t ON t.id = ta.track_id WHERE t.features IS NOT NULL"
        )
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|r| (r.artist_id, r.features)).collect())
    }

    /// The artists of a user's most recent `limit` plays, with when each was played.
    pub async fn played_artists(&self, user_id: &str, limit: u32) -> StoreResult<Vec<(i64, String)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            played_at: i64,
            artist_id: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT p.played_at, ta.artist_id FROM (SELECT track_id, played_at FROM plays WHERE user_id = $1 ORDER BY played_at DESC LIMIT $2) p \
             JOIN track_artists ta ON ta.track_id = p.track_id"
        )
        .bind(user_id)
        .bind(i64::from(limit))
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|r| (r.played_at, r.artist_id)).collect())
    }

    /// Every artist with their genres (for related artists and genre seeds).
    pub async fn artist_genres(&self) -> StoreResult<Vec<(String, Vec<String>)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            genres: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| sqlx::query_as("SELECT id, genres FROM artists ORDER BY name")
            .fetch_all(pool)
            .await
            .map_err(store_error))?;
        Ok(rows.into_iter().map(|r| (r.id, genres_of(&r.genres))).collect())
    }

    pub async fn new_release_ids(&self, window: Window) -> StoreResult<Slice<String>> {
        self.id_page(
            "SELECT id FROM albums ORDER BY release_date DESC, created_at DESC, id",
            "SELECT COUNT(*) AS n FROM albums",
            &[],
            window,
        )
        .await
    }

    /// One page of search results of one type.
    pub async fn search_ids(&self, kind: SearchKind, q: &SearchQuery, window: Window) -> StoreResult<Slice<String>> {
        let mut binds: Vec<String> = Vec::new();
        let mut conds: Vec<String> = Vec::new();
        let bind = |value: String, binds: &mut Vec<String>| {
            binds.push(value);
            format!("${}", binds.len())
        };
        let like = |s: &str| like_pattern(s);
        let order = match kind {
            SearchKind::Track => "t.name, t.id",
            SearchKind::Album => "a.name, a.id",
            SearchKind::Artist => "r.name, r.id",
        };
        let postgres = matches!(self.db, Db::Postgres(_));
        let (alias, base, column) = match kind {
            SearchKind::Track => ("t", "tracks", "search_text"),
            SearchKind::Album => ("a", "albums", "search_text"),
            SearchKind::Artist => ("r", "artists", "name_key"),
        };
        // Free words, and an artist filter where the item's own row carries
        // its artists' names, go through the item's full-text index as one
        // condition (see `text_condition`).
        let mut text = Vec::new();
        if !q.terms.is_empty() {
            text.push(TextMatch::new(column, &q.terms));
        }
        if let Some(artist) = &q.artist {
            match kind {
                SearchKind::Track => text.push(TextMatch::new("artist_text", std::slice::from_ref(artist))),
                SearchKind::Artist => text.push(TextMatch::new("name_key", std::slice::from_ref(artist))),
                SearchKind::Album => {}
            }
        }
        if !text.is_empty() {
            conds.push(text_condition(postgres, (alias, base), &text, &mut binds));
        }
        match kind {
            SearchKind::Track => {
                if let Some(album) = &q.album {
                    let p = bind(like(album), &mut binds);
                    conds.push(format!(
                        "EXISTS (SELECT 1 FROM albums a WHERE a.id = t.album_id AND LOWER(a.name) LIKE {p})"
                    ));
                }
                if let Some(track) = &q.track {
                    let p = bind(like(track), &mut binds);
                    conds.push(format!("LOWER(t.name) LIKE {p}"));
                }
                if let Some(genre) = &q.genre {
                    let p = bind(like(genre), &mut binds);
                    conds.push(format!("LOWER(COALESCE(t.genre, '')) LIKE {p}"));
                }
                if let Some(isrc) = &q.isrc {
                    let p = bind(isrc.clone(), &mut binds);
                    conds.push(format!("LOWER(COALESCE(t.isrc, '')) = {p}"));
                }
                if let Some((from, to)) = q.years {
                    conds.push(format!("t.year BETWEEN {from} AND {to}"));
                }
            }
            SearchKind::Album => {
                if q.has_track_fields() {
                    conds.push("1 = 0".to_owned());
                }
                if let Some(artist) = &q.artist {
                    // An uncorrelated `IN` list (a correlated EXISTS per
                    // candidate row was 25 times slower on SQLite at 10,000
                    // tracks); a library has ten times fewer albums than
                    // tracks.
                    let matched = text_condition(
                        postgres,
                        ("r", "artists"),
                        &[TextMatch::new("name_key", std::slice::from_ref(artist))],
                        &mut binds,
                    );
                    conds.push(format!(
                        "a.id IN (SELECT aa.album_id FROM album_artists aa WHERE aa.artist_id IN \
                         (SELECT r.id FROM artists r WHERE {matched}))"
                    ));
                }
                if let Some(album) = &q.album {
                    let p = bind(like(album), &mut binds);
                    conds.push(format!("LOWER(a.name) LIKE {p}"));
                }
                if let Some(genre) = &q.genre {
                    let p = bind(like(genre), &mut binds);
                    conds.push(format!("LOWER(a.genres) LIKE {p}"));
                }
                if let Some((from, to)) = q.years {
                    conds.push(format!(
                        "a.release_date >= '{from:04}' AND a.release_date < '{:04}'",
                        to.saturating_add(1)
                    ));
                }
                if q.tag_new {
                    conds.push("a.release_date >= (SELECT MAX(release_date) FROM albums)".to_owned());
                }
            }
            SearchKind::Artist => {
                if q.has_track_fields() || q.album.is_some() || q.years.is_some() {
                    conds.push("1 = 0".to_owned());
                }
                if let Some(genre) = &q.genre {
                    let p = bind(like(genre), &mut binds);
                    conds.push(format!("LOWER(r.genres) LIKE {p}"));
                }
            }
        }
        // Text alone is counted from the index table, without the items,
        // and many matches are paged from the covering (name, id, text)
        // index.
        let text_alone = conds.len() == 1 && !text.is_empty() && !postgres;
        let count = if text_alone { fts_count(base, &text, &mut Vec::new()) } else { None };
        let walk = text_alone.then(|| {
            let mut like_binds = Vec::new();
            let likes = text
                .iter()
                .flat_map(|m| m.words.iter().map(move |w| (m.column, w)))
                .map(|(column, w)| {
                    like_binds.push(like_pattern(w));
                    format!("{alias}.{column} LIKE ${}", like_binds.len())
                })
                .collect::<Vec<_>>()
                .join(" AND ");
            (format!("{base}_name_text"), likes, like_binds)
        });
        let plan = SearchPlan { alias, table: base, index: format!("{base}_name"), order, conds, count, walk };
        self.search_page(&plan, &binds, window).await
    }

    /// One page of a search, ordered by name, and its total: the total
    /// first, then the page by the plan that suits how many items match.
    /// On SQLite, many matches are paged by walking the `(name, id)` index
    /// in order and stopping after the page (a few index entries per item);
    /// few matches are read by rowid and sorted (no walk over the whole
    /// index for a rare word). PostgreSQL's planner chooses by itself.
    async fn search_page(&self, plan: &SearchPlan<'_>, binds: &[String], window: Window) -> StoreResult<Slice<String>> {
        let SearchPlan { alias, table, index, order, conds, count, .. } = plan;
        let filter = if conds.is_empty() { String::new() } else { format!(" WHERE {}", conds.join(" AND ")) };
        // An index-only count binds the same values in the same order.
        let count_sql = count.clone().unwrap_or_else(|| format!("SELECT COUNT(*) AS n FROM {table} {alias}{filter}"));
        let counted: Vec<Count> = fetch_all_binds!(&self.db, Count, count_sql, binds)?;
        let total = counted.first().map_or(0, |c| to_u64(c.n));
        if total == 0 || window.offset >= total {
            return Ok(Slice { items: Vec::new(), total });
        }
        let many = matches!(self.db, Db::Sqlite(_)) && total >= WALK_NAME_INDEX_FROM;
        let page = |from: String, filter: &str| {
            format!(
                "SELECT {alias}.id AS id FROM {from}{filter} ORDER BY {order} LIMIT {} OFFSET {}",
                window.limit, window.offset
            )
        };
        let ids: Vec<IdRow> = match (&plan.walk, many) {
            // Words alone: the covering index answers the page by itself.
            (Some((covering, likes, like_binds)), true) => {
                let sql = page(format!("{table} {alias} INDEXED BY {covering}"), &format!(" WHERE {likes}"));
                fetch_all_binds!(&self.db, IdRow, sql, like_binds)?
            }
            (None, true) => {
                let sql = page(format!("{table} {alias} INDEXED BY {index}"), &filter);
                fetch_all_binds!(&self.db, IdRow, sql, binds)?
            }
            (_, false) => fetch_all_binds!(&self.db, IdRow, page(format!("{table} {alias}"), &filter), binds)?,
        };
        Ok(Slice { items: ids.into_iter().map(|r| r.id).collect(), total })
    }

    pub async fn features(&self, ids: &[String]) -> StoreResult<HashMap<String, String>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            features: Option<String>,
        }
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let sql = format!("SELECT id, features FROM tracks WHERE id IN ({})", placeholders(1, ids.len()));
        let rows = fetch_all_binds!(&self.db, Row, sql, ids)?;
        Ok(rows.into_iter().filter_map(|r| r.features.map(|f| (r.id, f))).collect())
    }

    /// Every analysed track's id and feature JSON (recommendations rank these).
    pub async fn all_features(&self) -> StoreResult<Vec<(String, String)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            features: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT id, features FROM tracks WHERE features IS NOT NULL ORDER BY id"
        )
        .fetch_all(pool)
        .await
        .map_err(store_error))?;
        Ok(rows.into_iter().map(|r| (r.id, r.features)).collect())
    }

    pub async fn analysis(&self, id: &str) -> StoreResult<Option<String>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            analysis: Option<String>,
        }
        let row: Option<Row> = with_db!(&self.db, |pool| sqlx::query_as("SELECT analysis FROM tracks WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
            .map_err(store_error))?;
        Ok(row.and_then(|r| r.analysis))
    }

    pub async fn tracks_of_artists(&self, artist_ids: &[String]) -> StoreResult<Vec<String>> {
        if artist_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT DISTINCT track_id AS id FROM track_artists WHERE artist_id IN ({})",
            placeholders(1, artist_ids.len())
        );
        Ok(fetch_all_binds!(&self.db, IdRow, sql, artist_ids)?.into_iter().map(|r| r.id).collect())
    }

    pub async fn track_genres(&self) -> StoreResult<Vec<(String, String)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            genre: String,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT id, LOWER(genre) AS genre FROM tracks WHERE genre IS NOT NULL"
        )
        .fetch_all(pool)
        .await
        .map_err(store_error))?;
        Ok(rows.into_iter().map(|r| (r.id, r.genre)).collect())
    }

    // ----- images ---------------------------------------------------------

    pub async fn image(&self, id: &str) -> StoreResult<Option<Image>> {
        let row: Option<ImageRow> =
            with_db!(&self.db, |pool| sqlx::query_as("SELECT id, mime, width, height FROM images WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error))?;
        Ok(row.map(|r| Image { id: r.id, mime: r.mime, width: r.width.map(to_u32), height: r.height.map(to_u32) }))
    }

    pub async fn image_data(&self, id: &str) -> StoreResult<Option<(String, Vec<u8>)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            mime: String,
            data: Vec<u8>,
        }
        let row: Option<Row> =
            with_db!(&self.db, |pool| sqlx::query_as("SELECT mime, data FROM images WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error))?;
        Ok(row.map(|r| (r.mime, r.data)))
    }

    // ----- saved items and follows ---------------------------------------

    pub async fn save_items(&self, user_id: &str, item_type: &str, ids: &[String], now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for (i, id) in ids.iter().enumerate() {
                // Later ids of one request count as added later, so the
                // library lists them in the order they were given.
                sqlx::query(
                    "INSERT INTO saved_items (user_id, item_type, item_id, added_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                )
                .bind(user_id)
                .bind(item_type)
                .bind(id)
                .bind(now.as_millis() + i64::try_from(i).unwrap_or(0))
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)
        })
    }

    pub async fn remove_items(&self, user_id: &str, item_type: &str, ids: &[String]) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for id in ids {
                sqlx::query("DELETE FROM saved_items WHERE user_id = $1 AND item_type = $2 AND item_id = $3")
                    .bind(user_id)
                    .bind(item_type)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)
        })
    }

    pub async fn contains_items(&self, user_id: &str, item_type: &str, ids: &[String]) -> StoreResult<Vec<bool>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT item_id AS id FROM saved_items WHERE user_id = $1 AND item_type = $2 AND item_id IN ({})",
            placeholders(3, ids.len())
        );
        let mut binds = vec![user_id.to_owned(), item_type.to_owned()];
        binds.extend(ids.iter().cloned());
        let found: Vec<String> = fetch_all_binds!(&self.db, IdRow, sql, &binds)?.into_iter().map(|r| r.id).collect();
        Ok(ids.iter().map(|id| found.contains(id)).collect())
    }

    /// Saved ids, most recently added first.
    pub async fn saved_ids(
        &self,
        user_id: &str,
        item_type: &str,
        window: Window,
    ) -> StoreResult<Slice<(String, Timestamp)>> {
        let rows: Vec<IdAt> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT item_id, added_at FROM saved_items WHERE user_id = $1 AND item_type = $2 ORDER BY added_at DESC, item_id LIMIT $3 OFFSET $4"
        )
        .bind(user_id)
        .bind(item_type)
        .bind(i64::from(window.limit))
        .bind(to_i64(window.offset))
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        let total: Count = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT COUNT(*) AS n FROM saved_items WHERE user_id = $1 AND item_type = $2"
        )
        .bind(user_id)
        .bind(item_type)
        .fetch_one(pool)
        .await
        .map_err(store_error))?;
        Ok(Slice {
            items: rows.into_iter().map(|r| (r.item_id, Timestamp::from_millis(r.added_at))).collect(),
            total: to_u64(total.n),
        })
    }

    /// Followed artists ordered by id, after the cursor `after`.
    pub async fn followed_artist_ids(
        &self,
        user_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> StoreResult<(Vec<String>, u64)> {
        let rows: Vec<IdRow> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT item_id AS id FROM saved_items WHERE user_id = $1 AND item_type = 'artist' AND item_id > $2 ORDER BY item_id LIMIT $3"
        )
        .bind(user_id)
        .bind(after.unwrap_or(""))
        .bind(i64::from(limit))
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        let total: Count = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT COUNT(*) AS n FROM saved_items WHERE user_id = $1 AND item_type = 'artist'"
        )
        .bind(user_id)
        .fetch_one(pool)
        .await
        .map_err(store_error))?;
        Ok((rows.into_iter().map(|r| r.id).collect(), to_u64(total.n)))
    }

    // ----- playlists -----------------------------------------------------

    /// Inserts a playlist and its owner's follow of it, in one transaction.
    pub async fn insert_playlist(&self, row: &PlaylistRow, now: Timestamp) -> StoreResult<()> {
        let search = playlist_search_text(&row.name, row.description.as_deref());
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO playlists (id, owner_id, name, description, public, collaborative, version, created_at, updated_at, search_text) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $7, $8)"
            )
            .bind(&row.id)
            .bind(&row.owner_id)
            .bind(&row.name)
            .bind(&row.description)
            .bind(row.public)
            .bind(row.collaborative)
            .bind(now.as_millis())
            .bind(&search)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO saved_items (user_id, item_type, item_id, added_at) VALUES ($1, 'playlist', $2, $3) ON CONFLICT DO NOTHING",
            )
            .bind(&row.owner_id)
            .bind(&row.id)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    pub async fn playlist(&self, id: &str) -> StoreResult<Option<PlaylistRow>> {
        let sql = format!("{PLAYLIST_SELECT} WHERE l.id = $1");
        Ok(fetch_all_binds!(&self.db, PlaylistRow, sql, &[id.to_owned()])?.into_iter().next())
    }

    /// Playlists a user follows (a creator follows what they create),
    /// newest first; `public_only` for another user's list.
    pub async fn playlists_of(
        &self,
        user_id: &str,
        public_only: bool,
        window: Window,
    ) -> StoreResult<Slice<PlaylistRow>> {
        // A non-public playlist is listed only to its owner and collaborators
        // (a follow from before that rule does not reveal it).
        let visible = if public_only {
            " AND l.public"
        } else {
            " AND (l.public OR l.owner_id = $1 OR EXISTS (SELECT 1 FROM playlist_collaborators c WHERE c.playlist_id = l.id AND c.user_id = $1))"
        };
        let filter = format!(
            " WHERE EXISTS (SELECT 1 FROM saved_items s WHERE s.user_id = $1 AND s.item_type = 'playlist' AND s.item_id = l.id){visible}"
        );
        let sql = format!(
            "{PLAYLIST_SELECT}{filter} ORDER BY l.created_at DESC, l.id LIMIT {} OFFSET {}",
            window.limit, window.offset
        );
        let rows = fetch_all_binds!(&self.db, PlaylistRow, sql, &[user_id.to_owned()])?;
        let count = format!("SELECT COUNT(*) AS n FROM playlists l{filter}");
        let total: Vec<Count> = fetch_all_binds!(&self.db, Count, count, &[user_id.to_owned()])?;
        Ok(Slice { items: rows, total: total.first().map_or(0, |c| to_u64(c.n)) })
    }

    /// A browse category's playlists: those the operator curated for it
    /// (in their order), then the public playlists holding tracks of the
    /// genre `category` (lowercased), those with the most such tracks first,
    /// then the most followed. Only public playlists are listed.
    pub async fn category_playlists(&self, category: &str, window: Window) -> StoreResult<Slice<PlaylistRow>> {
        let curated = "(SELECT c.position FROM category_playlists c WHERE c.category = $1 AND c.playlist_id = l.id)";
        let of_genre = "(SELECT COUNT(*) FROM playlist_items i JOIN tracks t ON t.id = i.track_id \
             WHERE i.playlist_id = l.id AND LOWER(t.genre) = $1)";
        let filter = format!("WHERE l.public AND ({curated} IS NOT NULL OR {of_genre} > 0)");
        let sql = format!(
            "{PLAYLIST_SELECT} {filter} ORDER BY COALESCE({curated}, 1000000000), {of_genre} DESC, followers DESC, l.created_at DESC, l.id \
             LIMIT {} OFFSET {}",
            window.limit, window.offset
        );
        let binds = [category.to_owned()];
        let rows = fetch_all_binds!(&self.db, PlaylistRow, sql, &binds)?;
        let count = format!("SELECT COUNT(*) AS n FROM playlists l {filter}");
        let total: Vec<Count> = fetch_all_binds!(&self.db, Count, count, &binds)?;
        Ok(Slice { items: rows, total: total.first().map_or(0, |c| to_u64(c.n)) })
    }

    /// Replaces the playlists curated for `category`, in order.
    pub async fn set_category_playlists(&self, category: &str, playlist_ids: &[String]) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM category_playlists WHERE category = $1")
                .bind(category)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            for (position, id) in playlist_ids.iter().enumerate() {
                sqlx::query("INSERT INTO category_playlists (category, playlist_id, position) VALUES ($1, $2, $3)")
                    .bind(category)
                    .bind(id)
                    .bind(i64::try_from(position).unwrap_or(i64::MAX))
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)
        })
    }

    /// The playlists curated for `category`, in order.
    pub async fn curated_playlist_ids(&self, category: &str) -> StoreResult<Vec<String>> {
        let sql = "SELECT playlist_id AS id FROM category_playlists WHERE category = $1 ORDER BY position".to_owned();
        Ok(fetch_all_binds!(&self.db, IdRow, sql, &[category.to_owned()])?.into_iter().map(|r| r.id).collect())
    }

    /// Public playlists, most followed first (featured and category lists).
    pub async fn public_playlists(&self, window: Window) -> StoreResult<Slice<PlaylistRow>> {
        let sql = format!(
            "{PLAYLIST_SELECT} WHERE l.public ORDER BY followers DESC, l.created_at DESC LIMIT {} OFFSET {}",
            window.limit, window.offset
        );
        let rows = fetch_all_binds!(&self.db, PlaylistRow, sql, &[])?;
        let total: Vec<Count> =
            fetch_all_binds!(&self.db, Count, "SELECT COUNT(*) AS n FROM playlists WHERE public".to_owned(), &[])?;
        Ok(Slice { items: rows, total: total.first().map_or(0, |c| to_u64(c.n)) })
    }

    pub async fn update_playlist(&self, id: &str, details: &PlaylistDetails, now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "UPDATE playlists SET name = COALESCE($2, name), description = COALESCE($3, description), public = COALESCE($4, public), \
             collaborative = COALESCE($5, collaborative), updated_at = $6, \
             search_text = lower(COALESCE($2, name) || ' ' || COALESCE($3, description, '')) WHERE id = $1"
        )
        .bind(id)
        .bind(&details.name)
        .bind(&details.description)
        .bind(details.public)
        .bind(details.collaborative)
        .bind(now.as_millis())
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    pub async fn playlist_items(&self, id: &str, window: Window) -> StoreResult<Slice<PlaylistItemRow>> {
        let rows: Vec<PlaylistItemRow> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT track_id, episode_id, added_by, added_at FROM playlist_items WHERE playlist_id = $1 ORDER BY position LIMIT $2 OFFSET $3"
        )
        .bind(id)
        .bind(i64::from(window.limit))
        .bind(to_i64(window.offset))
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        let total: Count = with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT COUNT(*) AS n FROM playlist_items WHERE playlist_id = $1"
        )
        .bind(id)
        .fetch_one(pool)
        .await
        .map_err(store_error))?;
        Ok(Slice { items: rows, total: to_u64(total.n) })
    }

    /// Rewrites a playlist's items with `edit` applied to the current list,
    /// in one transaction that first bumps the version (which takes the row
    /// lock, so concurrent edits serialise). Returns the new version.
    pub async fn edit_playlist_items<F>(
        &self,
        id: &str,
        now: Timestamp,
        edit: F,
    ) -> Result<i64, crate::error::CatalogError>
    where
        // The edit sees the version before it (what the current `snapshot_id`
        // names) and the items in order.
        F: FnOnce(i64, Vec<PlaylistItemRow>) -> Result<Vec<PlaylistItemRow>, crate::error::CatalogError> + Send,
    {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let version: Option<(i64,)> = sqlx::query_as(
                "UPDATE playlists SET version = version + 1, updated_at = $2 WHERE id = $1 RETURNING version",
            )
            .bind(id)
            .bind(now.as_millis())
            .fetch_optional(&mut *tx)
            .await
            .map_err(store_error)?;
            let Some((version,)) = version else {
                return Err(crate::error::CatalogError::NotFound("playlist"));
            };
            let current: Vec<PlaylistItemRow> = sqlx::query_as(
                "SELECT track_id, episode_id, added_by, added_at FROM playlist_items WHERE playlist_id = $1 ORDER BY position",
            )
            .bind(id)
            .fetch_all(&mut *tx)
            .await
            .map_err(store_error)?;
            let next = edit(version - 1, current)?;
            sqlx::query("DELETE FROM playlist_items WHERE playlist_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            for (position, item) in next.iter().enumerate() {
                sqlx::query("INSERT INTO playlist_items (playlist_id, position, track_id, episode_id, added_by, added_at) VALUES ($1, $2, $3, $6, $4, $5)")
                    .bind(id)
                    .bind(i64::try_from(position).unwrap_or(i64::MAX))
                    .bind(&item.track_id)
                    .bind(&item.added_by)
                    .bind(item.added_at)
                    .bind(&item.episode_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(version)
        })
    }

    /// Whether `user_id` collaborates on the playlist.
    pub async fn is_collaborator(&self, playlist_id: &str, user_id: &str) -> StoreResult<bool> {
        with_db!(&self.db, |pool| sqlx::query_as::<_, (i64,)>(
            "SELECT COUNT(*) FROM playlist_collaborators WHERE playlist_id = $1 AND user_id = $2"
        )
        .bind(playlist_id)
        .bind(user_id)
        .fetch_one(pool)
        .await
        .map(|(n,)| n > 0)
        .map_err(store_error))
    }

    /// Adds collaborators (adding one twice keeps the first date).
    pub async fn add_collaborators(&self, playlist_id: &str, user_ids: &[String], now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            for user_id in user_ids {
                sqlx::query(
                    "INSERT INTO playlist_collaborators (playlist_id, user_id, added_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                )
                .bind(playlist_id)
                .bind(user_id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map_err(store_error)?;
            }
            Ok(())
        })
    }

    pub async fn remove_collaborators(&self, playlist_id: &str, user_ids: &[String]) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            for user_id in user_ids {
                sqlx::query("DELETE FROM playlist_collaborators WHERE playlist_id = $1 AND user_id = $2")
                    .bind(playlist_id)
                    .bind(user_id)
                    .execute(pool)
                    .await
                    .map_err(store_error)?;
            }
            Ok(())
        })
    }

    /// The playlist's collaborators, in the order they were added.
    pub async fn collaborators(&self, playlist_id: &str) -> StoreResult<Vec<String>> {
        with_db!(&self.db, |pool| sqlx::query_as::<_, (String,)>(
            "SELECT user_id FROM playlist_collaborators WHERE playlist_id = $1 ORDER BY added_at, user_id"
        )
        .bind(playlist_id)
        .fetch_all(pool)
        .await
        .map(|rows| rows.into_iter().map(|(id,)| id).collect())
        .map_err(store_error))
    }

    pub async fn set_playlist_image(&self, id: &str, image_id: &str, mime: &str, data: &[u8]) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("INSERT INTO images (id, mime, data) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING")
                .bind(image_id)
                .bind(mime)
                .bind(data)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("UPDATE playlists SET image_id = $2 WHERE id = $1")
                .bind(id)
                .bind(image_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    // ----- listening history ---------------------------------------------

    pub async fn insert_play(
        &self,
        user_id: &str,
        track_id: &str,
        at: Timestamp,
        context: Option<&str>,
    ) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO plays (user_id, track_id, played_at, context_uri) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING"
        )
        .bind(user_id)
        .bind(track_id)
        .bind(at.as_millis())
        .bind(context)
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    /// Plays newest first, strictly before `before` and after `after` (ms).
    /// With `after`, the page is the `limit` plays right after that instant
    /// (the next page forward in time); otherwise the newest before `before`.
    pub async fn plays(
        &self,
        user_id: &str,
        after: Option<i64>,
        before: Option<i64>,
        limit: u32,
    ) -> StoreResult<Vec<PlayRow>> {
        let order = if after.is_some() { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT track_id, played_at, context_uri FROM plays WHERE user_id = $1 AND played_at > $2 AND played_at < $3 ORDER BY played_at {order} LIMIT $4"
        );
        let mut rows: Vec<PlayRow> = with_db!(&self.db, |pool| {
            sqlx::query_as(AssertSqlSafe(sql.clone()))
                .bind(user_id)
                .bind(after.unwrap_or(i64::MIN))
                .bind(before.unwrap_or(i64::MAX))
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        if after.is_some() {
            rows.reverse();
        }
        Ok(rows)
    }

    /// How many plays lie strictly between `after` and `before` (ms).
    pub async fn count_plays(&self, user_id: &str, after: Option<i64>, before: Option<i64>) -> StoreResult<u64> {
        let row: Count = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT COUNT(*) AS n FROM plays WHERE user_id = $1 AND played_at > $2 AND played_at < $3")
                .bind(user_id)
                .bind(after.unwrap_or(i64::MIN))
                .bind(before.unwrap_or(i64::MAX))
                .fetch_one(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(to_u64(row.n))
    }

    /// Track ids with their play counts since `since`, most played first.
    pub async fn top_track_ids(&self, user_id: &str, since: Timestamp) -> StoreResult<Vec<(String, i64)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            track_id: String,
            n: i64,
        }
        let rows: Vec<Row> = with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT track_id, COUNT(*) AS n FROM plays WHERE user_id = $1 AND played_at >= $2 GROUP BY track_id ORDER BY n DESC, track_id"
        )
        .bind(user_id)
        .bind(since.as_millis())
        .fetch_all(pool)
        .await
        .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|r| (r.track_id, r.n)).collect())
    }
}

/// A registered device.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DeviceRow {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub device_type: String,
    pub volume_percent: i64,
    pub supports_volume: bool,
    pub last_seen: i64,
}

/// A user's playback document and its version.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlaybackRow {
    pub state: String,
    pub version: i64,
}

impl Store {
    // ----- devices and playback ------------------------------------------

    pub async fn insert_device(&self, d: &DeviceRow, now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO devices (id, user_id, name, device_type, volume_percent, supports_volume, last_seen, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        )
        .bind(&d.id)
        .bind(&d.user_id)
        .bind(&d.name)
        .bind(&d.device_type)
        .bind(d.volume_percent)
        .bind(d.supports_volume)
        .bind(d.last_seen)
        .bind(now.as_millis())
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    pub async fn device(&self, id: &str) -> StoreResult<Option<DeviceRow>> {
        with_db!(&self.db, |pool| {
            sqlx::query_as(
            "SELECT id, user_id, name, device_type, volume_percent, supports_volume, last_seen FROM devices WHERE id = $1"
        )
        .bind(id)
        .fetch_optional(pool)
        .await
        .map_err(store_error)
        })
    }

    /// The user's devices seen at or after `since`, oldest registration first.
    pub async fn devices_seen(&self, user_id: &str, since: i64) -> StoreResult<Vec<DeviceRow>> {
        with_db!(&self.db, |pool| sqlx::query_as(
            "SELECT id, user_id, name, device_type, volume_percent, supports_volume, last_seen FROM devices \
             WHERE user_id = $1 AND last_seen >= $2 ORDER BY created_at, id"
        )
        .bind(user_id)
        .bind(since)
        .fetch_all(pool)
        .await
        .map_err(store_error))
    }

    pub async fn touch_device(&self, id: &str, now: Timestamp) -> StoreResult<()> {
        with_db!(&self.db, |pool| sqlx::query("UPDATE devices SET last_seen = $1 WHERE id = $2")
            .bind(now.as_millis())
            .bind(id)
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error))
    }

    pub async fn set_device_volume(&self, id: &str, volume: i64) -> StoreResult<()> {
        with_db!(&self.db, |pool| sqlx::query("UPDATE devices SET volume_percent = $1 WHERE id = $2")
            .bind(volume)
            .bind(id)
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error))
    }

    pub async fn delete_device(&self, id: &str) -> StoreResult<()> {
        with_db!(&self.db, |pool| sqlx::query("DELETE FROM devices WHERE id = $1")
            .bind(id)
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error))
    }

    pub async fn playback(&self, user_id: &str) -> StoreResult<Option<PlaybackRow>> {
        with_db!(&self.db, |pool| sqlx::query_as("SELECT state, version FROM playback WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error))
    }

    /// The version of a user's playback (0 before the first command): what a
    /// waiting device compares.
    pub async fn playback_version(&self, user_id: &str) -> StoreResult<i64> {
        let row: Option<Count> =
            with_db!(&self.db, |pool| sqlx::query_as("SELECT version AS n FROM playback WHERE user_id = $1")
                .bind(user_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error))?;
        Ok(row.map_or(0, |r| r.n))
    }

    /// Writes the playback document if its version is still `seen` (0: no
    /// row yet); `bump` raises the version so waiting devices wake up.
    /// Returns whether the write happened (false: someone else wrote first).
    pub async fn write_playback(
        &self,
        user_id: &str,
        state: &str,
        seen: i64,
        bump: bool,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let next = if bump { seen + 1 } else { seen.max(1) };
        let affected = if seen == 0 {
            with_db!(&self.db, |pool| {
                sqlx::query(
                "INSERT INTO playback (user_id, state, version, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO NOTHING"
            )
            .bind(user_id)
            .bind(state)
            .bind(next)
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
            .map_err(store_error)
            })?
        } else {
            with_db!(&self.db, |pool| sqlx::query(
                "UPDATE playback SET state = $1, version = $2, updated_at = $3 WHERE user_id = $4 AND version = $5"
            )
            .bind(state)
            .bind(next)
            .bind(now.as_millis())
            .bind(user_id)
            .bind(seen)
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
            .map_err(store_error))?
        };
        Ok(affected == 1)
    }

    /// The value of a server-wide secret, created with `fresh` on first use
    /// (by whichever node gets there first).
    pub async fn secret(&self, name: &str, fresh: &str) -> StoreResult<String> {
        #[derive(sqlx::FromRow)]
        struct Row {
            value: String,
        }
        let row: Row = with_db!(&self.db, |pool| {
            sqlx::query("INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING")
                .bind(name)
                .bind(fresh)
                .execute(pool)
                .await
                .map_err(store_error)?;
            sqlx::query_as("SELECT value FROM secrets WHERE name = $1")
                .bind(name)
                .fetch_one(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.value)
    }
}

/// How a user is looked up.
#[derive(Clone, Copy, Debug)]
pub enum UserKey {
    Id,
    Username,
}

/// Words that must all occur in one indexed text column of a table (a
/// case-insensitive substring each).
#[derive(Clone, Copy)]
struct TextMatch<'a> {
    column: &'a str,
    words: &'a [String],
}

impl<'a> TextMatch<'a> {
    fn new(column: &'a str, words: &'a [String]) -> Self {
        Self { column, words }
    }
}

/// `%word%` for `LIKE`, without the wildcards a user may have typed.
fn like_pattern(word: &str) -> String {
    format!("%{}%", word.replace(['%', '_'], ""))
}

/// The condition "every word of every match occurs in its column",
/// answered from the full-text index, with its values appended to `binds`.
/// PostgreSQL: `LIKE '%word%'`, which its pg_trgm GIN indexes answer.
/// SQLite: the `<table>_fts` FTS5 trigram table, matched with a phrase per
/// word of three or more characters in its column (a trigram phrase is a
/// substring match, read from the index alone) and `LIKE` for shorter words
/// (which trigrams cannot index); several columns are one FTS5 query.
fn text_condition(
    postgres: bool,
    (alias, table): (&str, &str),
    matches: &[TextMatch],
    binds: &mut Vec<String>,
) -> String {
    if postgres {
        let mut conds = Vec::new();
        for m in matches {
            for word in m.words {
                binds.push(like_pattern(word));
                conds.push(format!("{alias}.{} LIKE ${}", m.column, binds.len()));
            }
        }
        return if conds.is_empty() { "1 = 1".to_owned() } else { conds.join(" AND ") };
    }
    match fts_inner(table, matches, binds) {
        Some(inner) => format!("{alias}.rowid IN (SELECT rowid FROM {table}_fts WHERE {inner})"),
        None => "1 = 1".to_owned(),
    }
}

/// From this many matches on, a search page walks the name index in order
/// (at most about `N / total` index entries per item of the page) instead
/// of reading every match and sorting.
const WALK_NAME_INDEX_FROM: u64 = 1_000;

/// How one search reads its page and total.
struct SearchPlan<'a> {
    alias: &'a str,
    table: &'a str,
    /// The `(name, id)` index the page walks when many items match.
    index: String,
    order: &'a str,
    conds: Vec<String>,
    /// A cheaper count over the same binds, when there is one.
    count: Option<String>,
    /// For words alone (SQLite): the covering index, the words as `LIKE`
    /// conditions on its text column, and their binds.
    walk: Option<(String, String, Vec<String>)>,
}

/// SQLite only: the count of items matching every word, read from the
/// `<table>_fts` index table alone (the words are bound again, in the same
/// order as [`text_condition`] binds them, which is why this takes its own
/// bind list and is used only when the words are the search's only binds).
fn fts_count(table: &str, matches: &[TextMatch], binds: &mut Vec<String>) -> Option<String> {
    let inner = fts_inner(table, matches, binds)?;
    Some(format!("SELECT COUNT(*) AS n FROM {table}_fts WHERE {inner}"))
}

/// The condition on `<table>_fts` that every word of every match matches
/// (see [`text_condition`]); `None` when there is no word to match.
fn fts_inner(table: &str, matches: &[TextMatch], binds: &mut Vec<String>) -> Option<String> {
    let mut inner = Vec::new();
    let phrases: Vec<String> = matches.iter().filter_map(|m| crate::search::fts_phrases(m.column, m.words)).collect();
    if !phrases.is_empty() {
        binds.push(phrases.join(" AND "));
        inner.push(format!("{table}_fts MATCH ${}", binds.len()));
    }
    for m in matches {
        for word in m.words.iter().filter(|w| w.chars().count() < crate::search::TRIGRAM) {
            binds.push(like_pattern(word));
            inner.push(format!("{} LIKE ${}", m.column, binds.len()));
        }
    }
    (!inner.is_empty()).then(|| inner.join(" AND "))
}

/// Which catalog type a search covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    Track,
    Album,
    Artist,
}

/// A change of playlist details; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct PlaylistDetails {
    pub name: Option<String>,
    pub description: Option<String>,
    pub public: Option<bool>,
    pub collaborative: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popularity_grows_logarithmically_and_saturates() {
        assert_eq!(popularity(0), 0);
        assert!(popularity(1) > 0);
        assert!(popularity(10) < popularity(100));
        assert_eq!(popularity(1_000_000), 100);
        assert_eq!(placeholders(3, 2), "$3, $4");
    }
}

/// What a scan writes for one spoken-word file (an episode or a chapter).
#[derive(Clone, Debug)]
pub struct EpisodeUpsert {
    pub id: String,
    pub show: ShowUpsert,
    pub name: String,
    pub number: u32,
    pub duration_ms: u64,
    pub release_date: String,
    pub release_date_precision: String,
    pub description: String,
    pub path: String,
    pub file_size: u64,
    pub file_mtime: i64,
    pub mime: String,
    pub now: Timestamp,
}

#[derive(Clone, Debug)]
pub struct ShowUpsert {
    pub id: String,
    /// `show` or `audiobook`.
    pub kind: String,
    pub key: String,
    pub name: String,
    pub publisher: String,
    pub image: Option<(String, String, Vec<u8>)>,
}

#[derive(sqlx::FromRow)]
struct ShowRow {
    id: String,
    kind: String,
    name: String,
    publisher: String,
    description: String,
    image_id: Option<String>,
    total: i64,
}

#[derive(sqlx::FromRow)]
struct EpisodeRow {
    id: String,
    show_id: String,
    name: String,
    number: i64,
    duration_ms: i64,
    release_date: String,
    release_date_precision: String,
    description: String,
}

const SHOW_SELECT: &str = "SELECT s.id, s.kind, s.name, s.publisher, s.description, s.image_id, \
     (SELECT COUNT(*) FROM episodes e WHERE e.show_id = s.id) AS total FROM shows s";

impl Store {
    // ----- podcasts and audiobooks ----------------------------------------

    /// Writes one scanned spoken-word file and its show, in one transaction;
    /// a track at the same path (a file retagged as spoken word) goes.
    pub async fn upsert_episode(&self, e: &EpisodeUpsert) -> StoreResult<()> {
        let show_search = format!("{} {}", e.show.name, e.show.publisher).to_lowercase();
        let search = format!("{} {} {}", e.name, e.show.name, e.show.publisher).to_lowercase();
        let now = e.now.as_millis();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let image_id = match &e.show.image {
                Some((id, mime, data)) => {
                    sqlx::query("INSERT INTO images (id, mime, data) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING")
                        .bind(id)
                        .bind(mime)
                        .bind(data.as_slice())
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?;
                    Some(id.clone())
                }
                None => None,
            };
            sqlx::query(
                "INSERT INTO shows (id, kind, name, show_key, publisher, description, image_id, search_text, created_at) \
                 VALUES ($1, $2, $3, $4, $5, '', $6, $7, $8) \
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
                 publisher = CASE WHEN excluded.publisher = '' THEN shows.publisher ELSE excluded.publisher END, \
                 image_id = COALESCE(excluded.image_id, shows.image_id), search_text = excluded.search_text",
            )
            .bind(&e.show.id)
            .bind(&e.show.kind)
            .bind(&e.show.name)
            .bind(&e.show.key)
            .bind(&e.show.publisher)
            .bind(&image_id)
            .bind(&show_search)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query("DELETE FROM tracks WHERE path = $1")
                .bind(&e.path)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO episodes (id, show_id, name, number, duration_ms, release_date, release_date_precision, description, \
                 path, file_size, file_mtime, mime, search_text, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
                 ON CONFLICT (id) DO UPDATE SET show_id = excluded.show_id, name = excluded.name, number = excluded.number, \
                 duration_ms = excluded.duration_ms, release_date = excluded.release_date, \
                 release_date_precision = excluded.release_date_precision, description = excluded.description, \
                 file_size = excluded.file_size, file_mtime = excluded.file_mtime, mime = excluded.mime, \
                 search_text = excluded.search_text",
            )
            .bind(&e.id)
            .bind(&e.show.id)
            .bind(&e.name)
            .bind(i64::from(e.number))
            .bind(to_i64(e.duration_ms))
            .bind(&e.release_date)
            .bind(&e.release_date_precision)
            .bind(&e.description)
            .bind(&e.path)
            .bind(to_i64(e.file_size))
            .bind(e.file_mtime)
            .bind(&e.mime)
            .bind(&search)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            // A show that lost its last episode to this move goes.
            sqlx::query("DELETE FROM shows WHERE NOT EXISTS (SELECT 1 FROM episodes x WHERE x.show_id = shows.id)")
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    /// Shows and audiobooks by id, in the order asked; unknown ids are `None`.
    pub async fn shows(&self, ids: &[String]) -> StoreResult<Vec<Option<crate::model::Show>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!("{SHOW_SELECT} WHERE s.id IN ({})", placeholders(1, ids.len()));
        let rows = fetch_all_binds!(&self.db, ShowRow, sql, ids)?;
        let by_id: HashMap<String, crate::model::Show> = rows
            .into_iter()
            .filter_map(|r| {
                let kind = crate::ids::ItemKind::parse(&r.kind)?;
                let show = crate::model::Show {
                    id: r.id.clone(),
                    kind,
                    name: r.name,
                    publisher: r.publisher,
                    description: r.description,
                    image_id: r.image_id,
                    total: to_u32(r.total),
                };
                Some((r.id, show))
            })
            .collect();
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    /// Episodes and chapters by id, in the order asked; unknown ids are `None`.
    pub async fn episodes(&self, ids: &[String]) -> StoreResult<Vec<Option<crate::model::Episode>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT id, show_id, name, number, duration_ms, release_date, release_date_precision, description \
             FROM episodes WHERE id IN ({})",
            placeholders(1, ids.len())
        );
        let rows = fetch_all_binds!(&self.db, EpisodeRow, sql, ids)?;
        let mut show_ids: Vec<String> = rows.iter().map(|r| r.show_id.clone()).collect();
        show_ids.sort();
        show_ids.dedup();
        let shows: HashMap<String, crate::model::Show> =
            self.shows(&show_ids).await?.into_iter().flatten().map(|s| (s.id.clone(), s)).collect();
        let by_id: HashMap<String, crate::model::Episode> = rows
            .into_iter()
            .filter_map(|r| {
                let show = shows.get(&r.show_id)?.clone();
                let episode = crate::model::Episode {
                    id: r.id.clone(),
                    show,
                    name: r.name,
                    number: to_u32(r.number),
                    duration_ms: to_u64(r.duration_ms),
                    release_date: r.release_date,
                    release_date_precision: r.release_date_precision,
                    description: r.description,
                    resume_position_ms: 0,
                    fully_played: false,
                };
                Some((r.id, episode))
            })
            .collect();
        Ok(ids.iter().map(|id| by_id.get(id).cloned()).collect())
    }

    pub async fn show_episode_ids(&self, show_id: &str, window: Window) -> StoreResult<Slice<String>> {
        self.id_page(
            "SELECT id FROM episodes WHERE show_id = $1 ORDER BY number, name, id",
            "SELECT COUNT(*) AS n FROM episodes WHERE show_id = $1",
            &[show_id.to_owned()],
            window,
        )
        .await
    }

    /// One page of search results over shows, audiobooks (`kind` `Show` or
    /// `Audiobook`: name and publisher) or episodes (`Episode`: the
    /// episode's name and its show's), ordered by name. Words are answered
    /// from the full-text index; `year:` filters episodes by release date;
    /// any other field filter matches nothing, as these types lack the field.
    /// One page of public playlists whose name or description holds every
    /// word, ordered by name, answered from the full-text index. Field
    /// filters match nothing: playlists have no artist, album or year.
    pub async fn search_playlist_ids(&self, q: &SearchQuery, window: Window) -> StoreResult<Slice<String>> {
        let postgres = matches!(self.db, Db::Postgres(_));
        let mut binds: Vec<String> = Vec::new();
        let mut conds: Vec<String> = vec!["l.public".to_owned()];
        if !q.terms.is_empty() {
            conds.push(text_condition(
                postgres,
                ("l", "playlists"),
                &[TextMatch::new("search_text", &q.terms)],
                &mut binds,
            ));
        }
        if q.artist.is_some()
            || q.album.is_some()
            || q.has_track_fields()
            || q.genre.is_some()
            || q.tag_new
            || q.years.is_some()
        {
            conds.push("1 = 0".to_owned());
        }
        let plan = SearchPlan {
            alias: "l",
            table: "playlists",
            index: "playlists_name".to_owned(),
            order: "l.name, l.id",
            conds,
            count: None,
            walk: None,
        };
        self.search_page(&plan, &binds, window).await
    }

    pub async fn search_spoken_ids(
        &self,
        kind: crate::ids::ItemKind,
        q: &SearchQuery,
        window: Window,
    ) -> StoreResult<Slice<String>> {
        let postgres = matches!(self.db, Db::Postgres(_));
        let mut binds: Vec<String> = Vec::new();
        let mut conds: Vec<String> = Vec::new();
        let episodes = kind == crate::ids::ItemKind::Episode;
        let table = if episodes { ("e", "episodes") } else { ("s", "shows") };
        if !q.terms.is_empty() {
            conds.push(text_condition(postgres, table, &[TextMatch::new("search_text", &q.terms)], &mut binds));
        }
        if q.artist.is_some() || q.album.is_some() || q.has_track_fields() || q.genre.is_some() || q.tag_new {
            conds.push("1 = 0".to_owned());
        }
        if episodes {
            conds.push("e.show_id IN (SELECT id FROM shows WHERE kind = 'show')".to_owned());
            if let Some((from, to)) = q.years {
                conds.push(format!("e.release_date >= '{from:04}' AND e.release_date < '{:04}'", to.saturating_add(1)));
            }
        } else {
            binds.push(kind.as_str().to_owned());
            conds.push(format!("s.kind = ${}", binds.len()));
            if q.years.is_some() {
                conds.push("1 = 0".to_owned());
            }
        }
        let (alias, base) = table;
        let plan = SearchPlan {
            alias,
            table: base,
            index: if episodes { "episodes_name".to_owned() } else { "shows_kind_name".to_owned() },
            order: if episodes { "e.name, e.id" } else { "s.name, s.id" },
            conds,
            count: None,
            walk: None,
        };
        self.search_page(&plan, &binds, window).await
    }
}

impl Store {
    /// Records where a user is in an episode or chapter.
    pub async fn set_resume_point(
        &self,
        user_id: &str,
        episode_id: &str,
        position_ms: u64,
        fully_played: bool,
        now: Timestamp,
    ) -> StoreResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
            "INSERT INTO resume_points (user_id, episode_id, position_ms, fully_played, updated_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (user_id, episode_id) DO UPDATE SET position_ms = excluded.position_ms, \
             fully_played = resume_points.fully_played OR excluded.fully_played, updated_at = excluded.updated_at"
        )
        .bind(user_id)
        .bind(episode_id)
        .bind(to_i64(position_ms))
        .bind(fully_played)
        .bind(now.as_millis())
        .execute(pool)
        .await
        .map(drop)
        .map_err(store_error)
        })
    }

    /// A user's resume points among `ids`: id → (position, fully played).
    pub async fn resume_points(&self, user_id: &str, ids: &[String]) -> StoreResult<HashMap<String, (u64, bool)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            episode_id: String,
            position_ms: i64,
            fully_played: bool,
        }
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let sql = format!(
            "SELECT episode_id, position_ms, fully_played FROM resume_points WHERE user_id = $1 AND episode_id IN ({})",
            placeholders(2, ids.len())
        );
        let mut binds = vec![user_id.to_owned()];
        binds.extend(ids.iter().cloned());
        let rows = fetch_all_binds!(&self.db, Row, sql, &binds)?;
        Ok(rows.into_iter().map(|r| (r.episode_id, (to_u64(r.position_ms), r.fully_played))).collect())
    }
}
