//! The courses service's store: every method is one atomic unit of work.
//!
//! The SQL is written once in the subset SQLite and PostgreSQL share and runs
//! on either through `platform::with_db!`. Read-modify-write of a course
//! first bumps the course row inside the transaction, which takes
//! PostgreSQL's row lock or SQLite's write lock, so concurrent edits on any
//! number of nodes serialise per course. The rate limiter does the same with
//! the key row, and the monthly caps are conditional upserts.

use futures_util::StreamExt as _;
use kernel::{StoreError, Timestamp};
use platform::db::store_error;
use platform::{Db, with_db};
use serde_json::{Map, Value};
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use tokio::sync::mpsc;

use crate::error::{CoursesError, CoursesResult};
use crate::model::{
    ApiKeyInfo, Completion, Course, CourseStatus, Identity, IssuedCertificate, ListItem, Resource, ResourceKind,
    Workspace, WorkspaceSummary,
};
use crate::plans::Plan;

mod media;
mod members;
pub use members::CourseLine;

/// Inserts outbox messages inside the transaction `$tx` of the change they
/// report, so a change and its webhook messages commit (or roll back)
/// together. A macro because the transaction's type differs per backend.
macro_rules! insert_deliveries {
    ($tx:expr, $workspace_id:expr, $deliveries:expr) => {
        for d in $deliveries {
            sqlx::query(
                "INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event, payload, sent_at_secs, signature, status, attempts, created_at, next_attempt_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
            )
            .bind(&d.id)
            .bind($workspace_id)
            .bind(&d.webhook_id)
            .bind(&d.event)
            .bind(&d.payload)
            .bind(d.sent_at_secs)
            .bind(&d.signature)
            .bind(&d.status)
            .bind(d.attempts)
            .bind(d.created_at.as_millis())
            .execute(&mut *$tx)
            .await
            .map_err(store_error)?;
        }
    };
}

/// One signed webhook message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub id: String,
    pub webhook_id: String,
    pub event: String,
    pub payload: String,
    pub sent_at_secs: i64,
    pub signature: String,
    pub status: String,
    pub attempts: i64,
    pub created_at: Timestamp,
    pub next_attempt_at: Option<Timestamp>,
    pub last_attempt_at: Option<Timestamp>,
    pub response_status: Option<i64>,
    pub last_error: Option<String>,
    pub delivered_at: Option<Timestamp>,
}

#[derive(sqlx::FromRow)]
pub struct DeliveryRow {
    id: String,
    webhook_id: String,
    event: String,
    payload: String,
    sent_at_secs: i64,
    signature: String,
    status: String,
    attempts: i64,
    created_at: i64,
    next_attempt_at: i64,
    last_attempt_at: Option<i64>,
    response_status: Option<i64>,
    last_error: Option<String>,
    delivered_at: Option<i64>,
}

impl From<DeliveryRow> for Delivery {
    fn from(r: DeliveryRow) -> Self {
        let pending = r.status == "pending";
        Self {
            id: r.id,
            webhook_id: r.webhook_id,
            event: r.event,
            payload: r.payload,
            sent_at_secs: r.sent_at_secs,
            signature: r.signature,
            status: r.status,
            attempts: r.attempts,
            created_at: ts(r.created_at),
            next_attempt_at: pending.then(|| ts(r.next_attempt_at)),
            last_attempt_at: r.last_attempt_at.map(ts),
            response_status: r.response_status,
            last_error: r.last_error,
            delivered_at: r.delivered_at.map(ts),
        }
    }
}

pub const DELIVERY_COLUMNS: &str = "id, webhook_id, event, payload, sent_at_secs, signature, status, attempts, created_at, \
     next_attempt_at, last_attempt_at, response_status, last_error, delivered_at";

/// What one delivery attempt came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// `delivered`, `pending` (retry at `next_attempt_at`) or `failed`.
    pub status: &'static str,
    pub next_attempt_at: Timestamp,
    pub response_status: Option<i64>,
    pub error: Option<String>,
    pub sent_at_secs: i64,
    pub signature: String,
}

/// A bound parameter of a streamed list query.
#[derive(Clone, Debug)]
pub enum Bind {
    Text(String),
    Int(i64),
}

const STREAM_BUFFER: usize = 64;

fn ts(millis: i64) -> Timestamp {
    Timestamp::from_millis(millis)
}

fn json_map(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[derive(sqlx::FromRow)]
struct WorkspaceSummaryRow {
    id: String,
    name: String,
    plan: String,
    payment_failed_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
    active_keys: i64,
    read_only_keys: i64,
    courses: i64,
    members: i64,
}

#[derive(sqlx::FromRow)]
struct WorkspaceRow {
    id: String,
    name: String,
    plan: String,
    payment_failed_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl From<WorkspaceRow> for Workspace {
    fn from(row: WorkspaceRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            plan: row.plan.parse().unwrap_or(Plan::Sandbox),
            payment_failed_at: row.payment_failed_at.map(ts),
            created_at: ts(row.created_at),
            updated_at: ts(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct KeyRow {
    id: String,
    workspace_id: String,
    name: String,
    display: String,
    read_only: bool,
    revoked_at: Option<i64>,
    last_used_at: Option<i64>,
    created_at: i64,
}

impl From<KeyRow> for ApiKeyInfo {
    fn from(row: KeyRow) -> Self {
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            name: row.name,
            display: row.display,
            read_only: row.read_only,
            revoked_at: row.revoked_at.map(ts),
            last_used_at: row.last_used_at.map(ts),
            created_at: ts(row.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
pub struct CourseRow {
    id: String,
    workspace_id: String,
    title: String,
    status: String,
    passing_score: Option<i64>,
    theme_id: Option<String>,
    certificate_id: Option<String>,
    source_kind: String,
    document: String,
    published_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl From<CourseRow> for Course {
    fn from(row: CourseRow) -> Self {
        let mut document = json_map(&row.document);
        let take_map = |doc: &mut Map<String, Value>, key: &str| match doc.remove(key) {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let settings = take_map(&mut document, "settings");
        let extra = take_map(&mut document, "extra");
        let screens = match document.remove("screens") {
            Some(Value::Array(screens)) => screens,
            _ => Vec::new(),
        };
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            title: row.title,
            status: CourseStatus::parse(&row.status).unwrap_or(CourseStatus::Draft),
            passing_score: row.passing_score,
            theme_id: row.theme_id,
            certificate_id: row.certificate_id,
            source_kind: row.source_kind,
            settings,
            screens,
            extra,
            published_at: row.published_at.map(ts),
            created_at: ts(row.created_at),
            updated_at: ts(row.updated_at),
        }
    }
}

fn course_document(course: &Course) -> String {
    serde_json::json!({
        "settings": course.settings,
        "screens": course.screens,
        "extra": course.extra,
    })
    .to_string()
}

#[derive(sqlx::FromRow)]
pub struct ResourceRow {
    id: String,
    workspace_id: String,
    kind: String,
    data: String,
    created_at: i64,
    updated_at: i64,
}

fn resource_kind(s: &str) -> ResourceKind {
    match s {
        "theme" => ResourceKind::Theme,
        "certificate_template" => ResourceKind::CertificateTemplate,
        "translation" => ResourceKind::Translation,
        "webhook" => ResourceKind::Webhook,
        _ => ResourceKind::Collection,
    }
}

impl From<ResourceRow> for Resource {
    fn from(row: ResourceRow) -> Self {
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            kind: resource_kind(&row.kind),
            data: json_map(&row.data),
            created_at: ts(row.created_at),
            updated_at: ts(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
pub struct IdentityRow {
    id: String,
    workspace_id: String,
    external_id: String,
    email: Option<String>,
    name: Option<String>,
    data: String,
    created_at: i64,
    updated_at: i64,
}

impl From<IdentityRow> for Identity {
    fn from(row: IdentityRow) -> Self {
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            external_id: row.external_id,
            email: row.email,
            name: row.name,
            extra: json_map(&row.data),
            created_at: ts(row.created_at),
            updated_at: ts(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
pub struct CompletionRow {
    id: String,
    workspace_id: String,
    course_id: String,
    identity_id: String,
    score: Option<f64>,
    passed: bool,
    scorm: Option<String>,
    created_at: i64,
}

impl From<CompletionRow> for Completion {
    fn from(row: CompletionRow) -> Self {
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            course_id: row.course_id,
            identity_id: row.identity_id,
            score: row.score,
            passed: row.passed,
            scorm: row.scorm.as_deref().map(json_map).filter(|m| !m.is_empty()),
            created_at: ts(row.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
pub struct CertificateRow {
    id: String,
    workspace_id: String,
    course_id: String,
    identity_id: String,
    completion_id: String,
    template_id: Option<String>,
    learner_name: String,
    course_title: String,
    score: Option<f64>,
    issued_at: i64,
}

impl From<CertificateRow> for IssuedCertificate {
    fn from(row: CertificateRow) -> Self {
        Self {
            id: row.id,
            workspace_id: row.workspace_id,
            course_id: row.course_id,
            identity_id: row.identity_id,
            completion_id: row.completion_id,
            template_id: row.template_id,
            learner_name: row.learner_name,
            course_title: row.course_title,
            score: row.score,
            issued_at: ts(row.issued_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct ViewRow {
    workspace_id: String,
    course_id: String,
    identity_id: Option<String>,
}

/// A course view: which course a learner opened, from the view's id.
#[derive(Clone, Debug)]
pub struct View {
    pub workspace_id: String,
    pub course_id: String,
    pub identity_id: Option<String>,
}

pub const COURSE_COLUMNS: &str = "id, workspace_id, title, status, passing_score, theme_id, certificate_id, \
    source_kind, document, published_at, created_at, updated_at";
pub const IDENTITY_COLUMNS: &str = "id, workspace_id, external_id, email, name, data, created_at, updated_at";
pub const COMPLETION_COLUMNS: &str = "id, workspace_id, course_id, identity_id, score, passed, scorm, created_at";
pub const CERTIFICATE_COLUMNS: &str = "id, workspace_id, course_id, identity_id, completion_id, template_id, \
    learner_name, course_title, score, issued_at";
pub const RESOURCE_COLUMNS: &str = "id, workspace_id, kind, data, created_at, updated_at";

/// The month a course view is counted in and the plan's hard cap, if any.
#[derive(Clone, Copy, Debug)]
pub struct ViewAllowance<'a> {
    pub month: &'a str,
    pub cap: Option<u64>,
}

/// An imported SCORM package.
#[derive(Clone, Debug)]
pub struct ScormPackage {
    pub id: String,
    /// `1.2` or `2004`.
    pub version: String,
}

/// One file of a package: its path in the zip and its blob.
#[derive(Clone, Debug)]
pub struct ScormFile {
    pub path: String,
    pub sha256: String,
    pub size: i64,
}

/// A package file's blob and the course it belongs to.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ScormFileOwner {
    pub sha256: String,
    pub course_id: String,
    pub workspace_id: String,
}

/// A new identity or the new values of an existing one (by external id).
#[derive(Clone, Debug)]
pub struct IdentityUpsert {
    pub id: String,
    pub external_id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub extra: Map<String, Value>,
}

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

    // ---- workspaces and keys ----

    pub async fn insert_workspace(&self, ws: &Workspace) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO workspaces (id, name, plan, payment_failed_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&ws.id)
            .bind(&ws.name)
            .bind(ws.plan.as_str())
            .bind(ws.payment_failed_at.map(Timestamp::as_millis))
            .bind(ws.created_at.as_millis())
            .bind(ws.updated_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// Every workspace, oldest first, with its active and read-only key
    /// counts and its course count (an operator's list).
    pub async fn workspace_summaries(&self) -> Result<Vec<WorkspaceSummary>, StoreError> {
        let rows: Vec<WorkspaceSummaryRow> = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, WorkspaceSummaryRow>(
                "SELECT w.id, w.name, w.plan, w.payment_failed_at, w.created_at, w.updated_at,
                   (SELECT COUNT(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS active_keys,
                   (SELECT COUNT(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL AND k.read_only) AS read_only_keys,
                   (SELECT COUNT(*) FROM courses c WHERE c.workspace_id = w.id) AS courses,
                   (SELECT COUNT(*) FROM memberships m WHERE m.workspace_id = w.id) AS members
                 FROM workspaces w ORDER BY w.created_at, w.id",
            )
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows
            .into_iter()
            .map(|row| WorkspaceSummary {
                active_keys: u64::try_from(row.active_keys).unwrap_or(0),
                read_only_keys: u64::try_from(row.read_only_keys).unwrap_or(0),
                courses: u64::try_from(row.courses).unwrap_or(0),
                members: u64::try_from(row.members).unwrap_or(0),
                workspace: Workspace::from(WorkspaceRow {
                    id: row.id,
                    name: row.name,
                    plan: row.plan,
                    payment_failed_at: row.payment_failed_at,
                    created_at: row.created_at,
                    updated_at: row.updated_at,
                }),
            })
            .collect())
    }

    pub async fn count_workspaces(&self) -> Result<i64, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM workspaces").fetch_one(pool).await.map_err(store_error)
        })
    }

    pub async fn workspace(&self, id: &str) -> Result<Option<Workspace>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, WorkspaceRow>(
                "SELECT id, name, plan, payment_failed_at, created_at, updated_at FROM workspaces WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Workspace::from))
            .map_err(store_error)
        })
    }

    pub async fn update_workspace(&self, ws: &Workspace) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "UPDATE workspaces SET name = $2, plan = $3, payment_failed_at = $4, updated_at = $5 WHERE id = $1",
            )
            .bind(&ws.id)
            .bind(&ws.name)
            .bind(ws.plan.as_str())
            .bind(ws.payment_failed_at.map(Timestamp::as_millis))
            .bind(ws.updated_at.as_millis())
            .execute(pool)
            .await
            .map(|r| r.rows_affected() == 1)
            .map_err(store_error)
        })
    }

    pub async fn insert_key(&self, key: &ApiKeyInfo, hash: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO api_keys (id, workspace_id, name, key_hash, display, read_only, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&key.id)
            .bind(&key.workspace_id)
            .bind(&key.name)
            .bind(hash)
            .bind(&key.display)
            .bind(key.read_only)
            .bind(key.created_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// The key with this hash and its workspace (one indexed lookup).
    pub async fn key_by_hash(&self, hash: &str) -> Result<Option<(ApiKeyInfo, Workspace)>, StoreError> {
        let key = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, KeyRow>(
                "SELECT id, workspace_id, name, display, read_only, revoked_at, last_used_at, created_at FROM api_keys WHERE key_hash = $1",
            )
            .bind(hash)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        let Some(key) = key else { return Ok(None) };
        Ok(self.workspace(&key.workspace_id).await?.map(|ws| (ApiKeyInfo::from(key), ws)))
    }

    pub async fn list_keys(&self, workspace_id: &str) -> Result<Vec<ApiKeyInfo>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, KeyRow>(
                "SELECT id, workspace_id, name, display, read_only, revoked_at, last_used_at, created_at FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id",
            )
            .bind(workspace_id)
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(ApiKeyInfo::from).collect())
            .map_err(store_error)
        })
    }

    pub async fn revoke_key(&self, workspace_id: &str, key_id: &str, now: Timestamp) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $1 AND workspace_id = $2")
                .bind(key_id)
                .bind(workspace_id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected() == 1)
                .map_err(store_error)
        })
    }

    /// Records one request of `key_id` in the sliding window, unless the
    /// window already holds `limit` requests: then returns the instant the
    /// oldest of them leaves the window. The key row is written first so
    /// concurrent requests with one key serialise on every backend.
    pub async fn hit_rate(
        &self,
        key_id: &str,
        now: Timestamp,
        window_ms: i64,
        limit: i64,
    ) -> Result<Option<Timestamp>, StoreError> {
        let cutoff = now.as_millis() - window_ms;
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("UPDATE api_keys SET last_used_at = $2 WHERE id = $1")
                .bind(key_id)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM rate_hits WHERE key_id = $1 AND at <= $2")
                .bind(key_id)
                .bind(cutoff)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let (count, oldest): (i64, Option<i64>) =
                sqlx::query_as("SELECT COUNT(*), MIN(at) FROM rate_hits WHERE key_id = $1")
                    .bind(key_id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
            let outcome = if count >= limit {
                Some(ts(oldest.unwrap_or(now.as_millis()) + window_ms))
            } else {
                sqlx::query("INSERT INTO rate_hits (key_id, at) VALUES ($1, $2)")
                    .bind(key_id)
                    .bind(now.as_millis())
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                None
            };
            tx.commit().await.map_err(store_error)?;
            Ok(outcome)
        })
    }

    /// Drops rate-window rows older than `before` (idle keys leave them behind).
    pub async fn prune_rate_hits(&self, before: Timestamp) -> Result<u64, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM rate_hits WHERE at <= $1")
                .bind(before.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })
    }

    // ---- usage ----

    pub async fn usage(&self, workspace_id: &str, month: &str, metric: &str) -> Result<u64, StoreError> {
        let count: Option<i64> = with_db!(&self.db, |pool| {
            sqlx::query_scalar(
                "SELECT count FROM usage_counters WHERE workspace_id = $1 AND month = $2 AND metric = $3",
            )
            .bind(workspace_id)
            .bind(month)
            .bind(metric)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(count.and_then(|c| u64::try_from(c).ok()).unwrap_or(0))
    }

    /// Adds one to a monthly counter unless it already reached `cap`.
    /// Returns whether the unit was counted.
    pub async fn take_unit(
        &self,
        workspace_id: &str,
        month: &str,
        metric: &str,
        cap: Option<u64>,
    ) -> Result<bool, StoreError> {
        let cap = cap.and_then(|c| i64::try_from(c).ok()).unwrap_or(i64::MAX);
        if cap <= 0 {
            return Ok(false);
        }
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO usage_counters (workspace_id, month, metric, count) VALUES ($1, $2, $3, 1)
                 ON CONFLICT (workspace_id, month, metric) DO UPDATE SET count = usage_counters.count + 1
                 WHERE usage_counters.count < $4",
            )
            .bind(workspace_id)
            .bind(month)
            .bind(metric)
            .bind(cap)
            .execute(pool)
            .await
            .map(|r| r.rows_affected() == 1)
            .map_err(store_error)
        })
    }

    /// Counts a course view within `cap` and records the view row in one
    /// transaction. Returns false (and writes nothing) when capped.
    /// Records one opening of a course in one transaction: the month's view
    /// counter (conditional on `cap`, so a hard cap holds across nodes), the
    /// learner met for the first time (an existing learner is left as it
    /// is; `view.identity_id` is ignored), and the view row that the player's later calls name. Returns
    /// `None`, with nothing written, when the cap is reached; else the
    /// learner, if one was named.
    pub async fn open_view(
        &self,
        view_id: &str,
        view: &View,
        learner: Option<&IdentityUpsert>,
        learner_messages: &[Delivery],
        allowance: ViewAllowance<'_>,
        now: Timestamp,
    ) -> Result<Option<Option<Identity>>, StoreError> {
        let ViewAllowance { month, cap } = allowance;
        let cap = cap.and_then(|c| i64::try_from(c).ok()).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let counted = sqlx::query(
                "INSERT INTO usage_counters (workspace_id, month, metric, count) VALUES ($1, $2, 'course_views', 1)
                 ON CONFLICT (workspace_id, month, metric) DO UPDATE SET count = usage_counters.count + 1
                 WHERE usage_counters.count < $3",
            )
            .bind(&view.workspace_id)
            .bind(month)
            .bind(cap)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected()
                == 1;
            if !counted {
                tx.rollback().await.map_err(store_error)?;
                return Ok(None);
            }
            let identity = match learner {
                Some(item) => Some(Identity::from(
                    sqlx::query_as::<_, IdentityRow>(sqlx::AssertSqlSafe(format!(
                        "INSERT INTO identities (id, workspace_id, external_id, email, name, data, created_at, updated_at)
                         VALUES ($1, $2, $3, NULL, NULL, '{{}}', $4, $4)
                         ON CONFLICT (workspace_id, external_id) DO UPDATE SET updated_at = identities.updated_at
                         RETURNING {IDENTITY_COLUMNS}"
                    )))
                    .bind(&item.id)
                    .bind(&view.workspace_id)
                    .bind(&item.external_id)
                    .bind(now.as_millis())
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?,
                )),
                None => None,
            };
            // The learner met for the first time: its `identity.created`
            // messages commit with it.
            if let (Some(item), Some(stored)) = (learner, &identity)
                && item.id == stored.id
            {
                insert_deliveries!(tx, &view.workspace_id, learner_messages);
            }
            sqlx::query(
                "INSERT INTO course_views (id, workspace_id, course_id, identity_id, created_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(view_id)
            .bind(&view.workspace_id)
            .bind(&view.course_id)
            .bind(identity.as_ref().map(|i| i.id.clone()))
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(Some(identity))
        })
    }

    /// The view with this id, if it was opened after `opened_after`
    /// (a view's id is a capability that lasts a while, not forever).
    pub async fn view(&self, view_id: &str, opened_after: Timestamp) -> Result<Option<View>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ViewRow>(
                "SELECT workspace_id, course_id, identity_id FROM course_views WHERE id = $1 AND created_at > $2",
            )
            .bind(view_id)
            .bind(opened_after.as_millis())
            .fetch_optional(pool)
            .await
            .map(|r| {
                r.map(|r| View { workspace_id: r.workspace_id, course_id: r.course_id, identity_id: r.identity_id })
            })
            .map_err(store_error)
        })
    }

    /// The sealed secret of a workspace for `purpose`: the stored one, or
    /// `candidate` stored now when there is none (the first writer wins, so
    /// every node ends up with the same secret).
    pub async fn workspace_secret(
        &self,
        workspace_id: &str,
        purpose: &str,
        candidate: &str,
        now: Timestamp,
    ) -> Result<String, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO workspace_secrets (workspace_id, purpose, sealed, created_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (workspace_id, purpose) DO NOTHING",
            )
            .bind(workspace_id)
            .bind(purpose)
            .bind(candidate)
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map_err(store_error)?;
            sqlx::query_scalar::<_, String>(
                "SELECT sealed FROM workspace_secrets WHERE workspace_id = $1 AND purpose = $2",
            )
            .bind(workspace_id)
            .bind(purpose)
            .fetch_one(pool)
            .await
            .map_err(store_error)
        })
    }

    /// Counts an anonymous preview: the first opening of `course_id` by
    /// `visitor` on `day` takes one course view (within `cap`), later ones
    /// that day take nothing. `Some(counted)`, or `None` (nothing written)
    /// when the first opening of the day meets the cap.
    pub async fn open_preview(
        &self,
        workspace_id: &str,
        course_id: &str,
        visitor: &str,
        day: &str,
        allowance: ViewAllowance<'_>,
        now: Timestamp,
    ) -> Result<Option<bool>, StoreError> {
        let ViewAllowance { month, cap } = allowance;
        let cap = cap.and_then(|c| i64::try_from(c).ok()).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let first = sqlx::query(
                "INSERT INTO embed_previews (workspace_id, course_id, visitor, day, created_at) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (course_id, visitor, day) DO NOTHING",
            )
            .bind(workspace_id)
            .bind(course_id)
            .bind(visitor)
            .bind(day)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected()
                == 1;
            if !first {
                tx.commit().await.map_err(store_error)?;
                return Ok(Some(false));
            }
            let counted = sqlx::query(
                "INSERT INTO usage_counters (workspace_id, month, metric, count) VALUES ($1, $2, 'course_views', 1)
                 ON CONFLICT (workspace_id, month, metric) DO UPDATE SET count = usage_counters.count + 1
                 WHERE usage_counters.count < $3",
            )
            .bind(workspace_id)
            .bind(month)
            .bind(cap)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected()
                == 1;
            if !counted {
                tx.rollback().await.map_err(store_error)?;
                return Ok(None);
            }
            tx.commit().await.map_err(store_error)?;
            Ok(Some(true))
        })
    }

    /// Drops preview rows older than `before` (they only matter on their day).
    pub async fn prune_previews(&self, before: Timestamp) -> Result<u64, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM embed_previews WHERE created_at < $1")
                .bind(before.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })
    }

    /// Every resource of a kind in every workspace (the one-off sealing of
    /// webhook keys stored before encryption at rest).
    pub async fn all_resources_of_kind(&self, kind: ResourceKind) -> Result<Vec<Resource>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ResourceRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {RESOURCE_COLUMNS} FROM resources WHERE kind = $1 ORDER BY created_at, id"
            )))
            .bind(kind.as_str())
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(Resource::from).collect())
            .map_err(store_error)
        })
    }

    // ---- courses ----

    pub async fn insert_course(&self, course: &Course) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO courses (id, workspace_id, title, status, passing_score, theme_id, certificate_id, source_kind, document, published_at, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )
            .bind(&course.id)
            .bind(&course.workspace_id)
            .bind(&course.title)
            .bind(course.status.as_str())
            .bind(course.passing_score)
            .bind(&course.theme_id)
            .bind(&course.certificate_id)
            .bind(&course.source_kind)
            .bind(course_document(course))
            .bind(course.published_at.map(Timestamp::as_millis))
            .bind(course.created_at.as_millis())
            .bind(course.updated_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// The course `id` of the workspace (`None` for another workspace's).
    pub async fn course(&self, workspace_id: &str, id: &str) -> Result<Option<Course>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CourseRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {COURSE_COLUMNS} FROM courses WHERE id = $1 AND workspace_id = $2"
            )))
            .bind(id)
            .bind(workspace_id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Course::from))
            .map_err(store_error)
        })
    }

    /// Any workspace's course, for the public embed.
    pub async fn course_by_id(&self, id: &str) -> Result<Option<Course>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CourseRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {COURSE_COLUMNS} FROM courses WHERE id = $1"
            )))
            .bind(id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Course::from))
            .map_err(store_error)
        })
    }

    /// Reads, changes and writes one course under its row lock. `change`
    /// may refuse (its error is returned and nothing is written).
    pub async fn modify_course<T>(
        &self,
        workspace_id: &str,
        id: &str,
        now: Timestamp,
        change: impl FnOnce(&mut Course) -> CoursesResult<T>,
    ) -> CoursesResult<(Course, T)> {
        self.modify_course_emitting(workspace_id, id, now, |course| change(course).map(|out| (out, Vec::new()))).await
    }

    /// [`Self::modify_course`] whose change also names the outbox messages
    /// that report it; they are written in the same transaction.
    pub async fn modify_course_emitting<T>(
        &self,
        workspace_id: &str,
        id: &str,
        now: Timestamp,
        change: impl FnOnce(&mut Course) -> CoursesResult<(T, Vec<Delivery>)>,
    ) -> CoursesResult<(Course, T)> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let locked = sqlx::query("UPDATE courses SET updated_at = $3 WHERE id = $1 AND workspace_id = $2")
                .bind(id)
                .bind(workspace_id)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if locked == 0 {
                return Err(CoursesError::not_found("course"));
            }
            let row = sqlx::query_as::<_, CourseRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {COURSE_COLUMNS} FROM courses WHERE id = $1"
            )))
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(store_error)?;
            let mut course = Course::from(row);
            let (out, messages) = change(&mut course)?;
            course.updated_at = now;
            sqlx::query(
                "UPDATE courses SET title = $2, status = $3, passing_score = $4, theme_id = $5, certificate_id = $6,
                 document = $7, published_at = $8, updated_at = $9 WHERE id = $1",
            )
            .bind(&course.id)
            .bind(&course.title)
            .bind(course.status.as_str())
            .bind(course.passing_score)
            .bind(&course.theme_id)
            .bind(&course.certificate_id)
            .bind(course_document(&course))
            .bind(course.published_at.map(Timestamp::as_millis))
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            insert_deliveries!(tx, workspace_id, &messages);
            tx.commit().await.map_err(store_error)?;
            Ok((course, out))
        })
    }

    /// Inserts an imported course and the SCORM package it plays (its file
    /// table; the files themselves are blobs already stored) in one
    /// transaction.
    pub async fn insert_course_with_package(
        &self,
        course: &Course,
        package: &ScormPackage,
        files: &[ScormFile],
    ) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO courses (id, workspace_id, title, status, passing_score, theme_id, certificate_id, source_kind, document, published_at, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )
            .bind(&course.id)
            .bind(&course.workspace_id)
            .bind(&course.title)
            .bind(course.status.as_str())
            .bind(course.passing_score)
            .bind(&course.theme_id)
            .bind(&course.certificate_id)
            .bind(&course.source_kind)
            .bind(course_document(course))
            .bind(course.published_at.map(Timestamp::as_millis))
            .bind(course.created_at.as_millis())
            .bind(course.updated_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO scorm_packages (id, workspace_id, course_id, version, created_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&package.id)
            .bind(&course.workspace_id)
            .bind(&course.id)
            .bind(&package.version)
            .bind(course.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            for file in files {
                sqlx::query("INSERT INTO scorm_files (package_id, path, sha256, size) VALUES ($1, $2, $3, $4)")
                    .bind(&package.id)
                    .bind(&file.path)
                    .bind(&file.sha256)
                    .bind(file.size)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)
        })
    }

    /// A file of a package with the course the package belongs to.
    pub async fn scorm_file(&self, package_id: &str, path: &str) -> Result<Option<ScormFileOwner>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ScormFileOwner>(
                "SELECT f.sha256, p.course_id, p.workspace_id FROM scorm_files f JOIN scorm_packages p ON p.id = f.package_id
                 WHERE f.package_id = $1 AND f.path = $2",
            )
            .bind(package_id)
            .bind(path)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })
    }

    /// Saves what a SCO committed for a learner (replacing what it saved before).
    pub async fn save_scorm_state(
        &self,
        workspace_id: &str,
        course_id: &str,
        identity_id: &str,
        block_id: &str,
        data: &Map<String, Value>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO scorm_state (workspace_id, course_id, identity_id, block_id, data, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (course_id, identity_id, block_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
            )
            .bind(workspace_id)
            .bind(course_id)
            .bind(identity_id)
            .bind(block_id)
            .bind(Value::Object(data.clone()).to_string())
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// What the SCOs of a course saved for a learner, by block id.
    pub async fn scorm_state(&self, course_id: &str, identity_id: &str) -> Result<Map<String, Value>, StoreError> {
        let rows: Vec<(String, String)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT block_id, data FROM scorm_state WHERE course_id = $1 AND identity_id = $2")
                .bind(course_id)
                .bind(identity_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(block, data)| (block, Value::Object(json_map(&data)))).collect())
    }

    pub async fn delete_course(&self, workspace_id: &str, id: &str) -> Result<bool, StoreError> {
        self.delete_from("courses", workspace_id, id).await
    }

    async fn delete_from(&self, table: &'static str, workspace_id: &str, id: &str) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE id = $1 AND workspace_id = $2")))
                .bind(id)
                .bind(workspace_id)
                .execute(pool)
                .await
                .map(|r| r.rows_affected() == 1)
                .map_err(store_error)
        })
    }

    // ---- resources ----

    pub async fn insert_resource(&self, r: &Resource) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("INSERT INTO resources (id, workspace_id, kind, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)")
                .bind(&r.id)
                .bind(&r.workspace_id)
                .bind(r.kind.as_str())
                .bind(Value::Object(r.data.clone()).to_string())
                .bind(r.created_at.as_millis())
                .bind(r.updated_at.as_millis())
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    pub async fn resource(
        &self,
        workspace_id: &str,
        kind: ResourceKind,
        id: &str,
    ) -> Result<Option<Resource>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ResourceRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {RESOURCE_COLUMNS} FROM resources WHERE id = $1 AND workspace_id = $2 AND kind = $3"
            )))
            .bind(id)
            .bind(workspace_id)
            .bind(kind.as_str())
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Resource::from))
            .map_err(store_error)
        })
    }

    /// Every resource of a kind in the workspace (webhooks are few).
    pub async fn resources_of_kind(&self, workspace_id: &str, kind: ResourceKind) -> Result<Vec<Resource>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ResourceRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {RESOURCE_COLUMNS} FROM resources WHERE workspace_id = $1 AND kind = $2 ORDER BY created_at, id"
            )))
            .bind(workspace_id)
            .bind(kind.as_str())
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(Resource::from).collect())
            .map_err(store_error)
        })
    }

    /// Writes outbox messages on their own (tests and tools; the service
    /// writes them with the change they report).
    pub async fn insert_deliveries(&self, workspace_id: &str, deliveries: &[Delivery]) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            insert_deliveries!(tx, workspace_id, deliveries);
            tx.commit().await.map_err(store_error)
        })
    }

    /// Claims up to `limit` pending messages that are due: each claimed
    /// message's next attempt moves `lease_ms` ahead, so another node (or
    /// the next tick) skips it while it is being sent. Returns the messages
    /// with their workspace ids.
    pub async fn claim_due_deliveries(
        &self,
        now: Timestamp,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, Delivery)>, StoreError> {
        let due: Vec<(String, String)> = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String, String)>(
                "SELECT id, workspace_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
                 ORDER BY next_attempt_at, created_at, id LIMIT $2",
            )
            .bind(now.as_millis())
            .bind(limit)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        let mut claimed = Vec::with_capacity(due.len());
        for (id, workspace_id) in due {
            let row = with_db!(&self.db, |pool| {
                sqlx::query_as::<_, DeliveryRow>(sqlx::AssertSqlSafe(format!(
                    "UPDATE webhook_deliveries SET next_attempt_at = $2
                     WHERE id = $1 AND status = 'pending' AND next_attempt_at <= $3
                     RETURNING {DELIVERY_COLUMNS}"
                )))
                .bind(&id)
                .bind(now.as_millis().saturating_add(lease_ms))
                .bind(now.as_millis())
                .fetch_optional(pool)
                .await
                .map_err(store_error)
            })?;
            if let Some(row) = row {
                claimed.push((workspace_id, Delivery::from(row)));
            }
        }
        Ok(claimed)
    }

    /// Extends the lease of a message being sent (while it is still pending).
    pub async fn renew_lease(&self, id: &str, until: Timestamp) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1 AND status = 'pending'")
                .bind(id)
                .bind(until.as_millis())
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    /// Puts a claimed message back without counting an attempt.
    pub async fn record_paused(&self, id: &str, outcome: &AttemptOutcome) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE webhook_deliveries SET next_attempt_at = $2, last_error = $3 WHERE id = $1")
                .bind(id)
                .bind(outcome.next_attempt_at.as_millis())
                .bind(&outcome.error)
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    /// Records one attempt of a claimed message.
    pub async fn record_attempt(&self, id: &str, outcome: &AttemptOutcome, now: Timestamp) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, next_attempt_at = $3,
                   last_attempt_at = $4, response_status = $5, last_error = $6, sent_at_secs = $7, signature = $8,
                   delivered_at = CASE WHEN $2 = 'delivered' THEN $4 ELSE delivered_at END
                 WHERE id = $1",
            )
            .bind(id)
            .bind(outcome.status)
            .bind(outcome.next_attempt_at.as_millis())
            .bind(now.as_millis())
            .bind(outcome.response_status)
            .bind(&outcome.error)
            .bind(outcome.sent_at_secs)
            .bind(&outcome.signature)
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    pub async fn update_resource(&self, r: &Resource) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "UPDATE resources SET data = $4, updated_at = $5 WHERE id = $1 AND workspace_id = $2 AND kind = $3",
            )
            .bind(&r.id)
            .bind(&r.workspace_id)
            .bind(r.kind.as_str())
            .bind(Value::Object(r.data.clone()).to_string())
            .bind(r.updated_at.as_millis())
            .execute(pool)
            .await
            .map(|r| r.rows_affected() == 1)
            .map_err(store_error)
        })
    }

    pub async fn delete_resource(&self, workspace_id: &str, kind: ResourceKind, id: &str) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM resources WHERE id = $1 AND workspace_id = $2 AND kind = $3")
                .bind(id)
                .bind(workspace_id)
                .bind(kind.as_str())
                .execute(pool)
                .await
                .map(|r| r.rows_affected() == 1)
                .map_err(store_error)
        })
    }

    // ---- identities ----

    /// Creates or updates (by external id) up to one batch of identities in
    /// one transaction. Returns the stored identities in input order and
    /// how many were created.
    pub async fn upsert_identities(
        &self,
        workspace_id: &str,
        batch: &[IdentityUpsert],
        messages: &[Vec<Delivery>],
        now: Timestamp,
    ) -> Result<(Vec<Identity>, usize), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let mut out = Vec::with_capacity(batch.len());
            let mut created = 0;
            for (index, item) in batch.iter().enumerate() {
                let data = Value::Object(item.extra.clone()).to_string();
                let row = sqlx::query_as::<_, IdentityRow>(sqlx::AssertSqlSafe(format!(
                    "INSERT INTO identities (id, workspace_id, external_id, email, name, data, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
                     ON CONFLICT (workspace_id, external_id) DO UPDATE SET
                       email = COALESCE(excluded.email, identities.email),
                       name = COALESCE(excluded.name, identities.name),
                       data = excluded.data, updated_at = excluded.updated_at
                     RETURNING {IDENTITY_COLUMNS}"
                )))
                .bind(&item.id)
                .bind(workspace_id)
                .bind(&item.external_id)
                .bind(&item.email)
                .bind(&item.name)
                .bind(&data)
                .bind(now.as_millis())
                .fetch_one(&mut *tx)
                .await
                .map_err(store_error)?;
                if row.id == item.id {
                    created += 1;
                    // `identity.created` messages of a new identity commit with it.
                    insert_deliveries!(tx, workspace_id, messages.get(index).map_or(&[][..], Vec::as_slice));
                }
                out.push(Identity::from(row));
            }
            tx.commit().await.map_err(store_error)?;
            Ok((out, created))
        })
    }

    pub async fn identity(&self, workspace_id: &str, id: &str) -> Result<Option<Identity>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, IdentityRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {IDENTITY_COLUMNS} FROM identities WHERE id = $1 AND workspace_id = $2"
            )))
            .bind(id)
            .bind(workspace_id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Identity::from))
            .map_err(store_error)
        })
    }

    /// Deletes identities by id or external id; returns how many went.
    pub async fn delete_identities(&self, workspace_id: &str, keys: &[String]) -> Result<u64, StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let mut deleted = 0;
            for key in keys {
                deleted +=
                    sqlx::query("DELETE FROM identities WHERE workspace_id = $1 AND (id = $2 OR external_id = $2)")
                        .bind(workspace_id)
                        .bind(key)
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?
                        .rows_affected();
            }
            tx.commit().await.map_err(store_error)?;
            Ok(deleted)
        })
    }

    // ---- completions and certificates ----

    /// Records a completion and its outbox messages in one transaction.
    pub async fn insert_completion(
        &self,
        c: &Completion,
        answers: &Map<String, Value>,
        messages: &[Delivery],
    ) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO completions (id, workspace_id, course_id, identity_id, score, passed, answers, scorm, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&c.id)
            .bind(&c.workspace_id)
            .bind(&c.course_id)
            .bind(&c.identity_id)
            .bind(c.score)
            .bind(c.passed)
            .bind(Value::Object(answers.clone()).to_string())
            .bind(c.scorm.as_ref().map(|m| Value::Object(m.clone()).to_string()))
            .bind(c.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            insert_deliveries!(tx, &c.workspace_id, messages);
            tx.commit().await.map_err(store_error)
        })
    }

    pub async fn completion(&self, workspace_id: &str, id: &str) -> Result<Option<Completion>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CompletionRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {COMPLETION_COLUMNS} FROM completions WHERE id = $1 AND workspace_id = $2"
            )))
            .bind(id)
            .bind(workspace_id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Completion::from))
            .map_err(store_error)
        })
    }

    /// The learner's best completion of a course: passed first, then the
    /// highest score, then the latest.
    pub async fn best_completion(
        &self,
        workspace_id: &str,
        course_id: &str,
        identity_id: &str,
    ) -> Result<Option<Completion>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CompletionRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {COMPLETION_COLUMNS} FROM completions WHERE workspace_id = $1 AND course_id = $2 AND identity_id = $3
                 ORDER BY passed DESC, COALESCE(score, -1) DESC, created_at DESC LIMIT 1"
            )))
            .bind(workspace_id)
            .bind(course_id)
            .bind(identity_id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Completion::from))
            .map_err(store_error)
        })
    }

    /// Inserts the certificate unless the learner already has one for the
    /// course, with its outbox messages when it is new (one transaction);
    /// returns the stored one and whether it is new.
    pub async fn issue_certificate(
        &self,
        cert: &IssuedCertificate,
        messages: &[Delivery],
    ) -> Result<(IssuedCertificate, bool), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let inserted = sqlx::query(
                "INSERT INTO issued_certificates (id, workspace_id, course_id, identity_id, completion_id, template_id, learner_name, course_title, score, issued_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (course_id, identity_id) DO NOTHING",
            )
            .bind(&cert.id)
            .bind(&cert.workspace_id)
            .bind(&cert.course_id)
            .bind(&cert.identity_id)
            .bind(&cert.completion_id)
            .bind(&cert.template_id)
            .bind(&cert.learner_name)
            .bind(&cert.course_title)
            .bind(cert.score)
            .bind(cert.issued_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected()
                == 1;
            if inserted {
                insert_deliveries!(tx, &cert.workspace_id, messages);
            }
            let stored = sqlx::query_as::<_, CertificateRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {CERTIFICATE_COLUMNS} FROM issued_certificates WHERE course_id = $1 AND identity_id = $2"
            )))
            .bind(&cert.course_id)
            .bind(&cert.identity_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok((IssuedCertificate::from(stored), inserted))
        })
    }

    pub async fn certificate(&self, workspace_id: &str, id: &str) -> Result<Option<IssuedCertificate>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CertificateRow>(sqlx::AssertSqlSafe(format!(
                "SELECT {CERTIFICATE_COLUMNS} FROM issued_certificates WHERE id = $1 AND workspace_id = $2"
            )))
            .bind(id)
            .bind(workspace_id)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(IssuedCertificate::from))
            .map_err(store_error)
        })
    }

    pub async fn delete_by_id(&self, table: Table, workspace_id: &str, id: &str) -> Result<bool, StoreError> {
        self.delete_from(table.name(), workspace_id, id).await
    }

    // ---- streamed lists ----

    /// Streams `limit` rows of `sql` (which must end with `LIMIT $n OFFSET
    /// $n+1` over the binds given) through a bounded channel, so a page of
    /// any size is never held in memory at once. The last message says
    /// whether more rows follow.
    pub fn stream<R, T>(&self, sql: String, binds: Vec<Bind>, limit: u64, offset: u64) -> mpsc::Receiver<ListItem<T>>
    where
        R: for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin + 'static,
        T: From<R> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let db = self.db.clone();
        let fetch = i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX);
        let skip = i64::try_from(offset).unwrap_or(i64::MAX);
        tokio::spawn(async move {
            let outcome: Result<bool, StoreError> = with_db!(&db, |pool| {
                let mut query = sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql));
                for bind in binds {
                    query = match bind {
                        Bind::Text(s) => query.bind(s),
                        Bind::Int(i) => query.bind(i),
                    };
                }
                let mut rows = query.bind(fetch).bind(skip).fetch(pool);
                let mut sent: u64 = 0;
                let mut more = false;
                let mut failure = None;
                while let Some(row) = rows.next().await {
                    match row {
                        Ok(_) if sent == limit => {
                            more = true;
                            break;
                        }
                        Ok(row) => {
                            sent += 1;
                            if tx.send(ListItem::Item(T::from(row))).await.is_err() {
                                return;
                            }
                        }
                        Err(err) => {
                            failure = Some(store_error(err));
                            break;
                        }
                    }
                }
                failure.map_or(Ok(more), Err)
            });
            let last = match outcome {
                Ok(has_more) => ListItem::End { has_more },
                Err(err) => ListItem::Failed(err),
            };
            tx.send(last).await.ok();
        });
        rx
    }
}

/// Tables whose rows are deleted by id within a workspace.
#[derive(Clone, Copy, Debug)]
pub enum Table {
    Identities,
    Completions,
    Certificates,
}

impl Table {
    const fn name(self) -> &'static str {
        match self {
            Self::Identities => "identities",
            Self::Completions => "completions",
            Self::Certificates => "issued_certificates",
        }
    }
}
