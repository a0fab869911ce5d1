//! The hub's store: every method is one atomic unit of work.
//!
//! The SQL is written once in the subset SQLite and PostgreSQL share and runs
//! on either through `platform::with_db!`. Invariants (one default version per
//! project, the project cap, the preview cap) are enforced inside the
//! transaction that could break them: each version-changing transaction first
//! writes the project row, which takes PostgreSQL's row lock or SQLite's write
//! lock, so concurrent writers on any number of nodes serialise per project.

use kernel::{Page, PageRequest, StoreError, Timestamp};
use platform::db::store_error;
use platform::{Db, with_db};

use crate::error::{HubError, HubResult};
use crate::model::{AuditEvent, Principal, Project, ProjectAccess, TokenInfo, User, Version};
use crate::plans::Plan;
use crate::roles::{Access, Role};

macro_rules! version_columns {
    () => {
        "id, project_id, label, spec_format, spec_sha256, spec_size, title, api_version, operation_count, \
         is_default, is_active, base_url, is_preview, pr_number, commit_sha, branch, expires_at, created_at, updated_at"
    };
}

macro_rules! project_columns {
    () => {
        "p.id, p.owner_id, p.slug, p.name, p.is_public, p.base_url, p.custom_domain, p.password_hash, p.branding, \
         p.created_at, p.updated_at"
    };
}

/// Projects the caller `$1` can see: owned, or shared with them as a
/// collaborator unless a Business account hid it with a `none` override.
/// Mirrors `Access::resolve`; a test checks both agree.
macro_rules! visible_to_user {
    () => {
        "(p.owner_id = $1 OR EXISTS (
            SELECT 1 FROM collaborators c JOIN users o ON o.id = c.account_user_id
            WHERE c.account_user_id = p.owner_id AND c.user_id = $1
              AND NOT (o.plan = 'business' AND COALESCE(
                    (SELECT r.role FROM project_roles r WHERE r.project_id = p.id AND r.user_id = $1),
                    c.default_role) = 'none')))"
    };
}

/// Expired previews are gone for every reader, whether or not the pruning
/// job has deleted their rows yet.
macro_rules! not_expired {
    ($now:literal) => {
        concat!("NOT (is_preview AND expires_at <= ", $now, ")")
    };
}

/// Takes an account's write lock in a transaction (PostgreSQL's row lock on
/// the user, SQLite's database lock), so caps checked under it (seats,
/// inboxes, captures) hold for concurrent requests on any number of nodes;
/// an account that does not exist is 404.
macro_rules! lock_account {
    ($conn:expr, $account:expr) => {{
        let locked = sqlx::query("UPDATE users SET plan = plan WHERE id = $1")
            .bind($account)
            .execute($conn)
            .await
            .map_err(store_error)?
            .rows_affected();
        if locked == 0 {
            return Err(HubError::not_found("account"));
        }
    }};
}

macro_rules! insert_audit {
    ($conn:expr, $event:expr) => {{
        let event: &AuditEvent = $event;
        sqlx::query(
            "INSERT INTO audit_events (id, account_user_id, actor_user_id, action, target_type, target_id, project_id, metadata, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&event.id)
        .bind(&event.account_user_id)
        .bind(&event.actor_user_id)
        .bind(&event.action)
        .bind(&event.target_type)
        .bind(&event.target_id)
        .bind(&event.project_id)
        .bind(event.metadata.to_string())
        .bind(event.created_at.as_millis())
        .execute(&mut *$conn)
        .await
        .map_err(store_error)?;
        // The webhook's outbox row, in the same transaction: the worker
        // sends it after commit, and a rollback takes both away.
        sqlx::query(
            "INSERT INTO audit_outbox (event_id, account_user_id, created_at)
             SELECT $1, $2, $3 WHERE EXISTS (
                 SELECT 1 FROM audit_settings s WHERE s.account_user_id = $2 AND s.webhook_url IS NOT NULL)",
        )
        .bind(&event.id)
        .bind(&event.account_user_id)
        .bind(event.created_at.as_millis())
        .execute(&mut *$conn)
        .await
        .map_err(store_error)
    }};
}

/// Takes the per-project write lock (see the module doc). Fails with
/// `NotFound` when the project vanished in the meantime.
macro_rules! lock_project {
    ($conn:expr, $project_id:expr, $now:expr) => {{
        let locked = sqlx::query("UPDATE projects SET updated_at = $2 WHERE id = $1")
            .bind($project_id)
            .bind($now)
            .execute($conn)
            .await
            .map_err(store_error)?
            .rows_affected();
        if locked == 0 {
            return Err(HubError::not_found("project"));
        }
    }};
}

macro_rules! fetch_version {
    ($conn:expr, $project_id:expr, $label:expr, $now:expr) => {
        sqlx::query_as::<_, VersionRow>(concat!(
            "SELECT ",
            version_columns!(),
            " FROM versions WHERE project_id = $1 AND label = $2 AND ",
            not_expired!("$3")
        ))
        .bind($project_id)
        .bind($label)
        .bind($now)
        .fetch_optional($conn)
        .await
        .map_err(store_error)
    };
}

macro_rules! promote {
    ($conn:expr, $project_id:expr, $version_id:expr, $now:expr) => {{
        sqlx::query("UPDATE versions SET is_default = FALSE, updated_at = $2 WHERE project_id = $1 AND is_default")
            .bind($project_id)
            .bind($now)
            .execute(&mut *$conn)
            .await
            .map_err(store_error)?;
        sqlx::query("UPDATE versions SET is_default = TRUE, updated_at = $2 WHERE id = $1")
            .bind($version_id)
            .bind($now)
            .execute(&mut *$conn)
            .await
            .map_err(store_error)?;
    }};
}

#[derive(sqlx::FromRow)]
struct UserRow {
    id: String,
    email: String,
    plan: String,
    created_at: i64,
}

impl UserRow {
    fn into_user(self) -> User {
        User {
            id: self.id,
            email: self.email,
            plan: self.plan.parse().unwrap_or(Plan::Free),
            created_at: Timestamp::from_millis(self.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct PrincipalRow {
    token_id: String,
    user_id: String,
    email: String,
    plan: String,
    expires_at: Option<i64>,
    last_used_at: Option<i64>,
}

impl PrincipalRow {
    fn into_parts(self) -> (Principal, Option<Timestamp>, Option<Timestamp>) {
        let principal = Principal {
            user_id: self.user_id,
            email: self.email,
            plan: self.plan.parse().unwrap_or(Plan::Free),
            token_id: Some(self.token_id),
        };
        (principal, self.expires_at.map(Timestamp::from_millis), self.last_used_at.map(Timestamp::from_millis))
    }
}

#[derive(sqlx::FromRow)]
struct TokenRow {
    id: String,
    user_id: String,
    name: String,
    display: String,
    expires_at: Option<i64>,
    last_used_at: Option<i64>,
    created_at: i64,
}

impl From<TokenRow> for TokenInfo {
    fn from(row: TokenRow) -> Self {
        Self {
            id: row.id,
            user_id: row.user_id,
            name: row.name,
            display: row.display,
            expires_at: row.expires_at.map(Timestamp::from_millis),
            last_used_at: row.last_used_at.map(Timestamp::from_millis),
            created_at: Timestamp::from_millis(row.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct ProjectRow {
    id: String,
    owner_id: String,
    slug: String,
    name: String,
    is_public: bool,
    base_url: Option<String>,
    custom_domain: Option<String>,
    password_hash: Option<String>,
    branding: String,
    created_at: i64,
    updated_at: i64,
}

impl From<ProjectRow> for Project {
    fn from(row: ProjectRow) -> Self {
        Self {
            id: row.id,
            owner_id: row.owner_id,
            slug: row.slug,
            name: row.name,
            is_public: row.is_public,
            base_url: row.base_url,
            custom_domain: row.custom_domain,
            has_password: row.password_hash.is_some(),
            branding: serde_json::from_str(&row.branding).unwrap_or_else(|_| serde_json::json!({})),
            created_at: Timestamp::from_millis(row.created_at),
            updated_at: Timestamp::from_millis(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct ProjectAccessRow {
    #[sqlx(flatten)]
    project: ProjectRow,
    owner_plan: String,
    default_role: Option<String>,
    project_role: Option<String>,
}

impl ProjectAccessRow {
    /// Resolves what `user_id` may do with the project (see `Access::resolve`).
    fn into_access(self, user_id: &str) -> ProjectAccess {
        let owner_plan: Plan = self.owner_plan.parse().unwrap_or(Plan::Free);
        let is_owner = self.project.owner_id == user_id;
        let default_role = self.default_role.as_deref().and_then(|r| r.parse().ok());
        let project_role = self.project_role.as_deref().and_then(|r| r.parse().ok());
        ProjectAccess {
            access: Access::resolve(is_owner, owner_plan, default_role, project_role),
            owner_plan,
            project: self.project.into(),
        }
    }
}

#[derive(sqlx::FromRow)]
struct VersionRow {
    id: String,
    project_id: String,
    label: String,
    spec_format: String,
    spec_sha256: String,
    spec_size: i64,
    title: String,
    api_version: String,
    operation_count: i64,
    is_default: bool,
    is_active: bool,
    base_url: Option<String>,
    is_preview: bool,
    pr_number: Option<i64>,
    commit_sha: Option<String>,
    branch: Option<String>,
    expires_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl From<VersionRow> for Version {
    fn from(row: VersionRow) -> Self {
        Self {
            id: row.id,
            project_id: row.project_id,
            label: row.label,
            spec_format: row.spec_format,
            spec_sha256: row.spec_sha256,
            spec_size: row.spec_size,
            title: row.title,
            api_version: row.api_version,
            operation_count: row.operation_count,
            is_default: row.is_default,
            is_active: row.is_active,
            base_url: row.base_url,
            is_preview: row.is_preview,
            pr_number: row.pr_number,
            commit_sha: row.commit_sha,
            branch: row.branch,
            expires_at: row.expires_at.map(Timestamp::from_millis),
            created_at: Timestamp::from_millis(row.created_at),
            updated_at: Timestamp::from_millis(row.updated_at),
        }
    }
}

/// A new user row.
pub struct NewUser<'a> {
    pub id: &'a str,
    pub email: &'a str,
    pub password_hash: Option<&'a str>,
    pub plan: Plan,
    pub now: Timestamp,
}

/// A new project row plus the cap it must respect.
pub struct NewProject<'a> {
    pub project: &'a Project,
    pub owner_plan: Plan,
    pub max_projects: Option<u32>,
    pub audit: Option<&'a AuditEvent>,
}

/// The columns a project PATCH may change; `None` leaves a column alone.
#[derive(Default)]
pub struct ProjectChanges<'a> {
    pub name: Option<&'a str>,
    pub is_public: Option<bool>,
    pub base_url: Option<Option<&'a str>>,
    pub custom_domain: Option<Option<&'a str>>,
}

/// A parsed spec to store as a version (new or replacing the same label).
pub struct VersionUpload<'a> {
    pub project_id: &'a str,
    pub new_id: &'a str,
    pub label: &'a str,
    pub spec_format: &'a str,
    pub spec_sha256: &'a str,
    pub spec_size: i64,
    pub title: &'a str,
    pub api_version: &'a str,
    pub operation_count: i64,
    pub make_default: bool,
    pub preview: Option<PreviewFields<'a>>,
    pub max_previews: u32,
    pub now: Timestamp,
}

pub struct PreviewFields<'a> {
    pub pr_number: Option<i64>,
    pub commit_sha: Option<&'a str>,
    pub branch: Option<&'a str>,
    pub expires_at: Timestamp,
}

/// What a version upload did, so the caller can audit it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadOutcome {
    Created,
    Replaced,
}

#[derive(Default)]
pub struct VersionChanges<'a> {
    pub is_default: Option<bool>,
    pub is_active: Option<bool>,
    pub base_url: Option<Option<&'a str>>,
}

/// The state a version PATCH moved through, for auditing.
#[derive(Debug, Default, Clone, Copy)]
pub struct VersionTransition {
    pub promoted: bool,
    pub deactivated: bool,
    pub reactivated: bool,
    pub base_url_changed: bool,
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

    // ---- users -------------------------------------------------------------

    pub async fn insert_user(&self, user: NewUser<'_>) -> HubResult<User> {
        let result = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, UserRow>(
                "INSERT INTO users (id, email, password_hash, plan, created_at, email_verified_at)
                 VALUES ($1, $2, $3, $4, $5, $5)
                 RETURNING id, email, plan, created_at",
            )
            .bind(user.id)
            .bind(user.email)
            .bind(user.password_hash)
            .bind(user.plan.as_str())
            .bind(user.now.as_millis())
            .fetch_one(pool)
            .await
            .map_err(store_error)
        });
        match result {
            Ok(row) => Ok(row.into_user()),
            Err(StoreError::Conflict(_)) => Err(HubError::conflict(format!("a user with email {} exists", user.email))),
            Err(err) => Err(err.into()),
        }
    }

    pub async fn user_by_email(&self, email: &str) -> HubResult<Option<User>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, UserRow>("SELECT id, email, plan, created_at FROM users WHERE email = $1")
                .bind(email)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(UserRow::into_user))
    }

    /// Changes the plan and records when a paid account dropped to Free
    /// (cleared again on any paid plan): the customization retention clock.
    pub async fn set_plan(
        &self,
        user_id: &str,
        plan: Plan,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "UPDATE users SET downgraded_at = CASE
                     WHEN $2 <> 'free' THEN NULL
                     WHEN plan <> 'free' THEN $3
                     ELSE downgraded_at END,
                   plan = $2
                 WHERE id = $1",
            )
            .bind(user_id)
            .bind(plan.as_str())
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn user_count(&self) -> HubResult<i64> {
        let (count,): (i64,) = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(pool).await.map_err(store_error)
        })?;
        Ok(count)
    }

    pub async fn add_collaborator(
        &self,
        account_user_id: &str,
        user_id: &str,
        role: Role,
        now: Timestamp,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO collaborators (account_user_id, user_id, default_role, created_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (account_user_id, user_id) DO UPDATE SET default_role = excluded.default_role",
            )
            .bind(account_user_id)
            .bind(user_id)
            .bind(role.as_str())
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
            .map_err(store_error)
        })?;
        Ok(())
    }

    pub async fn set_project_role(&self, project_id: &str, user_id: &str, role: Role) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO project_roles (project_id, user_id, role) VALUES ($1, $2, $3)
                 ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role",
            )
            .bind(project_id)
            .bind(user_id)
            .bind(role.as_str())
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
            .map_err(store_error)
        })?;
        Ok(())
    }

    // ---- tokens ------------------------------------------------------------

    pub async fn insert_token(&self, token: &TokenInfo, token_hash: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO access_tokens (id, user_id, name, token_hash, display, expires_at, last_used_at, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)",
            )
            .bind(&token.id)
            .bind(&token.user_id)
            .bind(&token.name)
            .bind(token_hash)
            .bind(&token.display)
            .bind(token.expires_at.map(Timestamp::as_millis))
            .bind(token.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    /// The caller behind a token hash, with the token's expiry and last use.
    pub async fn principal_by_token_hash(
        &self,
        token_hash: &str,
    ) -> HubResult<Option<(Principal, Option<Timestamp>, Option<Timestamp>)>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, PrincipalRow>(
                "SELECT t.id AS token_id, u.id AS user_id, u.email, u.plan, t.expires_at, t.last_used_at
                 FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(PrincipalRow::into_parts))
    }

    /// The caller behind a token id, with the token's expiry and stored hash
    /// (member sessions are signed with it).
    pub async fn principal_by_token_id(
        &self,
        token_id: &str,
    ) -> HubResult<Option<(Principal, Option<Timestamp>, String)>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String, String, String, String, Option<i64>, String)>(
                "SELECT t.id, u.id, u.email, u.plan, t.expires_at, t.token_hash
                 FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1",
            )
            .bind(token_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(token_id, user_id, email, plan, expires_at, token_hash)| {
            let principal =
                Principal { user_id, email, plan: plan.parse().unwrap_or(Plan::Free), token_id: Some(token_id) };
            (principal, expires_at.map(Timestamp::from_millis), token_hash)
        }))
    }

    pub async fn touch_token(&self, token_id: &str, now: Timestamp) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE access_tokens SET last_used_at = $2 WHERE id = $1")
                .bind(token_id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?;
        Ok(())
    }

    pub async fn tokens_of_user(&self, user_id: &str) -> HubResult<Vec<TokenInfo>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, TokenRow>(
                "SELECT id, user_id, name, display, expires_at, last_used_at, created_at
                 FROM access_tokens WHERE user_id = $1 ORDER BY created_at, id",
            )
            .bind(user_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(TokenInfo::from).collect())
    }

    /// Revocation deletes the row. Returns false when nothing matched.
    pub async fn delete_token(&self, user_id: &str, token_id: &str, audit: Option<&AuditEvent>) -> HubResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let deleted = sqlx::query("DELETE FROM access_tokens WHERE id = $1 AND user_id = $2")
                .bind(token_id)
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if let (1, Some(event)) = (deleted, audit) {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(deleted == 1)
        })
    }

    // ---- projects ----------------------------------------------------------

    /// The caller behind a token hash together with the project `slug` and
    /// their access to it, in one round trip: the hot path of project reads.
    /// `None` when the token or the project is unknown (the caller then asks
    /// again separately to tell which).
    pub async fn caller_and_project(
        &self,
        token_hash: &str,
        slug: &str,
    ) -> HubResult<Option<(Principal, Option<Timestamp>, Option<Timestamp>, ProjectAccess)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            caller: PrincipalRow,
            #[sqlx(flatten)]
            project: ProjectAccessRow,
        }
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, Row>(concat!(
                "SELECT t.id AS token_id, u.id AS user_id, u.email, u.plan, t.expires_at, t.last_used_at, ",
                project_columns!(),
                ", o.plan AS owner_plan, c.default_role, r.role AS project_role
                 FROM access_tokens t
                 JOIN users u ON u.id = t.user_id
                 JOIN projects p ON p.slug = $2
                 JOIN users o ON o.id = p.owner_id
                 LEFT JOIN collaborators c ON c.account_user_id = p.owner_id AND c.user_id = u.id
                 LEFT JOIN project_roles r ON r.project_id = p.id AND r.user_id = u.id
                 WHERE t.token_hash = $1"
            ))
            .bind(token_hash)
            .bind(slug)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|row| {
            let (principal, expires_at, last_used_at) = row.caller.into_parts();
            let access = row.project.into_access(&principal.user_id);
            (principal, expires_at, last_used_at, access)
        }))
    }

    /// The project with `slug` and the caller's access to it; `None` when it
    /// does not exist (the caller turns "no access" into the same answer).
    pub async fn project_access(&self, slug: &str, user_id: &str) -> HubResult<Option<ProjectAccess>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, ProjectAccessRow>(concat!(
                "SELECT ",
                project_columns!(),
                ", o.plan AS owner_plan, c.default_role, r.role AS project_role
                 FROM projects p
                 JOIN users o ON o.id = p.owner_id
                 LEFT JOIN collaborators c ON c.account_user_id = p.owner_id AND c.user_id = $2
                 LEFT JOIN project_roles r ON r.project_id = p.id AND r.user_id = $2
                 WHERE p.slug = $1"
            ))
            .bind(slug)
            .bind(user_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|row| row.into_access(user_id)))
    }

    pub async fn list_projects(
        &self,
        user_id: &str,
        query: Option<&str>,
        page: PageRequest,
    ) -> HubResult<Page<Project>> {
        let pattern = query.map(|q| format!("%{}%", escape_like(&q.to_lowercase())));
        let limit = i64::from(page.limit());
        let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
        let (rows, total) = with_db!(&self.db, |pool| {
            let rows = sqlx::query_as::<_, ProjectRow>(concat!(
                "SELECT ",
                project_columns!(),
                " FROM projects p WHERE ",
                visible_to_user!(),
                " AND ($2 IS NULL OR lower(p.name) LIKE $2 ESCAPE '\\' OR p.slug LIKE $2 ESCAPE '\\')
                 ORDER BY p.created_at DESC, p.id DESC LIMIT $3 OFFSET $4"
            ))
            .bind(user_id)
            .bind(pattern.as_deref())
            .bind(limit)
            .bind(offset)
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            let (total,): (i64,) = sqlx::query_as(concat!(
                "SELECT COUNT(*) FROM projects p WHERE ",
                visible_to_user!(),
                " AND ($2 IS NULL OR lower(p.name) LIKE $2 ESCAPE '\\' OR p.slug LIKE $2 ESCAPE '\\')"
            ))
            .bind(user_id)
            .bind(pattern.as_deref())
            .fetch_one(pool)
            .await
            .map_err(store_error)?;
            Ok::<_, StoreError>((rows, total))
        })?;
        Ok(Page {
            items: rows.into_iter().map(Project::from).collect(),
            total: u64::try_from(total).unwrap_or(0),
            request: page,
        })
    }

    /// Slugs equal to `base` or of the form `base-N`, to pick a free suffix.
    pub async fn slugs_like(&self, base: &str) -> HubResult<Vec<String>> {
        let pattern = format!("{}-%", escape_like(base));
        let rows: Vec<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT slug FROM projects WHERE slug = $1 OR slug LIKE $2 ESCAPE '\\'")
                .bind(base)
                .bind(&pattern)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(s,)| s).collect())
    }

    /// Inserts a project unless the owner is at their plan's project cap.
    /// The owner's row is written first so concurrent creations serialise.
    pub async fn insert_project(&self, new: NewProject<'_>) -> HubResult<()> {
        let p = new.project;
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("UPDATE users SET plan = plan WHERE id = $1")
                .bind(&p.owner_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if let Some(max) = new.max_projects {
                let (owned,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM projects WHERE owner_id = $1")
                    .bind(&p.owner_id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
                if owned >= i64::from(max) {
                    return Err(HubError::ProjectLimitReached { plan: new.owner_plan, limit: max });
                }
            }
            let inserted = sqlx::query(
                "INSERT INTO projects (id, owner_id, slug, name, is_public, base_url, custom_domain, branding, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, NULL, '{}', $7, $7)",
            )
            .bind(&p.id)
            .bind(&p.owner_id)
            .bind(&p.slug)
            .bind(&p.name)
            .bind(p.is_public)
            .bind(p.base_url.as_deref())
            .bind(p.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error);
            match inserted {
                Ok(_) => {}
                Err(StoreError::Conflict(_)) => {
                    return Err(HubError::conflict(format!("the slug {} is taken", p.slug)));
                }
                Err(err) => return Err(err.into()),
            }
            if let Some(event) = new.audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn update_project(
        &self,
        project_id: &str,
        changes: &ProjectChanges<'_>,
        now: Timestamp,
        audits: &[AuditEvent],
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let result = sqlx::query(
                "UPDATE projects SET
                    name = COALESCE($2, name),
                    is_public = COALESCE($3, is_public),
                    base_url = CASE WHEN $4 THEN $5 ELSE base_url END,
                    custom_domain = CASE WHEN $6 THEN $7 ELSE custom_domain END,
                    custom_domain_verified_at = CASE WHEN $6 AND $7 IS DISTINCT FROM custom_domain THEN NULL
                                                     ELSE custom_domain_verified_at END,
                    updated_at = $8
                 WHERE id = $1",
            )
            .bind(project_id)
            .bind(changes.name)
            .bind(changes.is_public)
            .bind(changes.base_url.is_some())
            .bind(changes.base_url.flatten())
            .bind(changes.custom_domain.is_some())
            .bind(changes.custom_domain.flatten())
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error);
            match result {
                Ok(r) if r.rows_affected() == 0 => return Err(HubError::not_found("project")),
                Ok(_) => {}
                Err(StoreError::Conflict(_)) => {
                    return Err(HubError::conflict("that custom domain is already used by another project"));
                }
                Err(err) => return Err(err.into()),
            }
            for event in audits {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Deletes a project; its versions and role rows go with it (cascade).
    pub async fn delete_project(&self, project_id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            // Explicit, so the cascade does not depend on SQLite's per-connection
            // foreign_keys pragma.
            sqlx::query("DELETE FROM versions WHERE project_id = $1")
                .bind(project_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM project_roles WHERE project_id = $1")
                .bind(project_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let deleted = sqlx::query("DELETE FROM projects WHERE id = $1")
                .bind(project_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if deleted == 0 {
                return Err(HubError::not_found("project"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Replaces a project's MCP token hash (the old token stops working).
    pub async fn set_mcp_token_hash(
        &self,
        project_id: &str,
        token_hash: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let sql = "UPDATE projects SET mcp_token_hash = $2, updated_at = $3 WHERE id = $1";
        self.set_project_token_hash(sql, project_id, token_hash, None, now, audit).await
    }

    pub async fn mcp_token_hash(&self, project_id: &str) -> HubResult<Option<String>> {
        let row: Option<(Option<String>,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT mcp_token_hash FROM projects WHERE id = $1")
                .bind(project_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.and_then(|(hash,)| hash))
    }

    /// Whether any project holds this MCP token hash.
    pub async fn mcp_token_exists(&self, token_hash: &str) -> HubResult<bool> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT id FROM projects WHERE mcp_token_hash = $1")
                .bind(token_hash)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.is_some())
    }

    /// Replaces a project's upload token hash (the old token stops working).
    /// Sets the project's upload token and who minted it (removing that
    /// collaborator later ends the token).
    pub async fn set_upload_token_hash(
        &self,
        project_id: &str,
        token_hash: &str,
        minted_by: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let sql =
            "UPDATE projects SET upload_token_hash = $2, updated_at = $3, upload_token_minted_by = $4 WHERE id = $1";
        self.set_project_token_hash(sql, project_id, token_hash, Some(minted_by), now, audit).await
    }

    /// Runs one of the token-hash updates above with its audit row, in one
    /// transaction.
    async fn set_project_token_hash(
        &self,
        sql: &'static str,
        project_id: &str,
        token_hash: &str,
        minted_by: Option<&str>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let mut query = sqlx::query(sql).bind(project_id).bind(token_hash).bind(now.as_millis());
            if let Some(minted_by) = minted_by {
                query = query.bind(minted_by);
            }
            let updated = query.execute(&mut *tx).await.map_err(store_error)?.rows_affected();
            if updated == 0 {
                return Err(HubError::not_found("project"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// The owner of the project `slug` and the hash of its upload token.
    pub async fn upload_credentials(&self, slug: &str) -> HubResult<Option<(Principal, Option<String>)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            owner_id: String,
            email: String,
            plan: String,
            upload_token_hash: Option<String>,
        }
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, Row>(
                "SELECT p.owner_id, o.email, o.plan, p.upload_token_hash
                 FROM projects p JOIN users o ON o.id = p.owner_id WHERE p.slug = $1",
            )
            .bind(slug)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|r| {
            let principal = Principal {
                user_id: r.owner_id,
                email: r.email,
                plan: r.plan.parse().unwrap_or(Plan::Free),
                token_id: None,
            };
            (principal, r.upload_token_hash)
        }))
    }

    // ---- versions ----------------------------------------------------------

    pub async fn list_versions(
        &self,
        project_id: &str,
        include_previews: bool,
        now: Timestamp,
        page: PageRequest,
    ) -> HubResult<Page<Version>> {
        let limit = i64::from(page.limit());
        let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
        let (rows, total) = with_db!(&self.db, |pool| {
            let rows = sqlx::query_as::<_, VersionRow>(concat!(
                "SELECT ",
                version_columns!(),
                " FROM versions WHERE project_id = $1 AND ($2 OR NOT is_preview) AND ",
                not_expired!("$3"),
                " ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"
            ))
            .bind(project_id)
            .bind(include_previews)
            .bind(now.as_millis())
            .bind(limit)
            .bind(offset)
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            let (total,): (i64,) = sqlx::query_as(concat!(
                "SELECT COUNT(*) FROM versions WHERE project_id = $1 AND ($2 OR NOT is_preview) AND ",
                not_expired!("$3")
            ))
            .bind(project_id)
            .bind(include_previews)
            .bind(now.as_millis())
            .fetch_one(pool)
            .await
            .map_err(store_error)?;
            Ok::<_, StoreError>((rows, total))
        })?;
        Ok(Page {
            items: rows.into_iter().map(Version::from).collect(),
            total: u64::try_from(total).unwrap_or(0),
            request: page,
        })
    }

    pub async fn version(&self, project_id: &str, label: &str, now: Timestamp) -> HubResult<Option<Version>> {
        let row = with_db!(&self.db, |pool| { fetch_version!(pool, project_id, label, now.as_millis()) })?;
        Ok(row.map(Version::from))
    }

    pub async fn default_version(&self, project_id: &str) -> HubResult<Option<Version>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, VersionRow>(concat!(
                "SELECT ",
                version_columns!(),
                " FROM versions WHERE project_id = $1 AND is_default"
            ))
            .bind(project_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(Version::from))
    }

    /// Stores an uploaded spec as a new version or over the version with the
    /// same label, applying the default-version and preview rules atomically.
    /// `audit` builds the rows for what happened (it is called inside the
    /// transaction with the outcome and the stored version).
    pub async fn upload_version(
        &self,
        upload: &VersionUpload<'_>,
        audit: impl Fn(UploadOutcome, &Version, bool) -> Vec<AuditEvent> + Send + Sync,
    ) -> HubResult<(UploadOutcome, Version)> {
        let now = upload.now.as_millis();
        let preview = upload.preview.as_ref();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, upload.project_id, now);
            // A preview past its expiry is gone even if the pruner has not run.
            sqlx::query(
                "DELETE FROM versions WHERE project_id = $1 AND label = $2 AND is_preview AND expires_at <= $3",
            )
            .bind(upload.project_id)
            .bind(upload.label)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            // The blob is referenced from now on: a collector deleting it
            // holds this row, so this waits for it (and the caller stores
            // the blob again when it is gone).
            sqlx::query("DELETE FROM blob_gc WHERE sha256 = $1")
                .bind(upload.spec_sha256)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let existing = fetch_version!(&mut *tx, upload.project_id, upload.label, now)?;
            let (outcome, version_id) = match existing {
                Some(current) if current.is_preview != preview.is_some() => {
                    let kind = if current.is_preview { "a preview" } else { "a regular version" };
                    return Err(HubError::conflict(format!(
                        "the label {} is already used by {kind}; choose another label",
                        upload.label
                    )));
                }
                Some(current) => {
                    if upload.make_default && !current.is_active {
                        return Err(HubError::validation(
                            "makeDefault",
                            "the version with this label is inactive; reactivate it before making it the default",
                        ));
                    }
                    sqlx::query(
                        "UPDATE versions SET spec_format = $2, spec_sha256 = $3, spec_size = $4, title = $5,
                            api_version = $6, operation_count = $7, pr_number = COALESCE($8, pr_number),
                            commit_sha = COALESCE($9, commit_sha), branch = COALESCE($10, branch),
                            expires_at = $11, updated_at = $12
                         WHERE id = $1",
                    )
                    .bind(&current.id)
                    .bind(upload.spec_format)
                    .bind(upload.spec_sha256)
                    .bind(upload.spec_size)
                    .bind(upload.title)
                    .bind(upload.api_version)
                    .bind(upload.operation_count)
                    .bind(preview.and_then(|p| p.pr_number))
                    .bind(preview.and_then(|p| p.commit_sha))
                    .bind(preview.and_then(|p| p.branch))
                    .bind(preview.map(|p| p.expires_at.as_millis()))
                    .bind(now)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                    (UploadOutcome::Replaced, current.id)
                }
                None => {
                    if preview.is_some() {
                        let (live,): (i64,) = sqlx::query_as(
                            "SELECT COUNT(*) FROM versions WHERE project_id = $1 AND is_preview AND expires_at > $2",
                        )
                        .bind(upload.project_id)
                        .bind(now)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(store_error)?;
                        if live >= i64::from(upload.max_previews) {
                            return Err(HubError::PreviewLimitReached { limit: upload.max_previews });
                        }
                    }
                    sqlx::query(
                        "INSERT INTO versions (id, project_id, label, spec_format, spec_sha256, spec_size, title,
                            api_version, operation_count, is_default, is_active, base_url, is_preview, pr_number,
                            commit_sha, branch, expires_at, created_at, updated_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, FALSE, TRUE, NULL, $10, $11, $12, $13, $14, $15, $15)",
                    )
                    .bind(upload.new_id)
                    .bind(upload.project_id)
                    .bind(upload.label)
                    .bind(upload.spec_format)
                    .bind(upload.spec_sha256)
                    .bind(upload.spec_size)
                    .bind(upload.title)
                    .bind(upload.api_version)
                    .bind(upload.operation_count)
                    .bind(preview.is_some())
                    .bind(preview.and_then(|p| p.pr_number))
                    .bind(preview.and_then(|p| p.commit_sha))
                    .bind(preview.and_then(|p| p.branch))
                    .bind(preview.map(|p| p.expires_at.as_millis()))
                    .bind(now)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                    (UploadOutcome::Created, upload.new_id.to_owned())
                }
            };
            let mut promoted = false;
            if preview.is_none() {
                let current_default: Option<(String,)> =
                    sqlx::query_as("SELECT id FROM versions WHERE project_id = $1 AND is_default")
                        .bind(upload.project_id)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(store_error)?;
                let is_already_default = current_default.as_ref().is_some_and(|(id,)| *id == version_id);
                if !is_already_default && (upload.make_default || current_default.is_none()) {
                    promote!(tx, upload.project_id, &version_id, now);
                    promoted = true;
                }
            }
            let stored =
                sqlx::query_as::<_, VersionRow>(concat!("SELECT ", version_columns!(), " FROM versions WHERE id = $1"))
                    .bind(&version_id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
            let stored = Version::from(stored);
            for event in audit(outcome, &stored, promoted) {
                insert_audit!(&mut *tx, &event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok((outcome, stored))
        })
    }

    /// Applies a sparse version PATCH under the state table's rules.
    pub async fn update_version(
        &self,
        project_id: &str,
        label: &str,
        changes: &VersionChanges<'_>,
        now: Timestamp,
        audit: impl Fn(VersionTransition, &Version) -> Vec<AuditEvent> + Send + Sync,
    ) -> HubResult<Version> {
        let now_ms = now.as_millis();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now_ms);
            let current = fetch_version!(&mut *tx, project_id, label, now_ms)?.ok_or(HubError::not_found("version"))?;
            let transition = plan_version_transition(&current, changes)?;
            sqlx::query(
                "UPDATE versions SET is_active = $2, base_url = CASE WHEN $3 THEN $4 ELSE base_url END, updated_at = $5
                 WHERE id = $1",
            )
            .bind(&current.id)
            .bind(changes.is_active.unwrap_or(current.is_active))
            .bind(changes.base_url.is_some())
            .bind(changes.base_url.flatten())
            .bind(now_ms)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if transition.promoted {
                promote!(tx, project_id, &current.id, now_ms);
            }
            let stored =
                sqlx::query_as::<_, VersionRow>(concat!("SELECT ", version_columns!(), " FROM versions WHERE id = $1"))
                    .bind(&current.id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
            let stored = Version::from(stored);
            for event in audit(transition, &stored) {
                insert_audit!(&mut *tx, &event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(stored)
        })
    }

    /// Deletes a non-default version.
    pub async fn delete_version(
        &self,
        project_id: &str,
        label: &str,
        now: Timestamp,
        audit: impl Fn(&Version) -> Option<AuditEvent> + Send + Sync,
    ) -> HubResult<()> {
        let now_ms = now.as_millis();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now_ms);
            let current = fetch_version!(&mut *tx, project_id, label, now_ms)?.ok_or(HubError::not_found("version"))?;
            if current.is_default {
                return Err(HubError::conflict("the default version cannot be deleted; promote another version first"));
            }
            sqlx::query("DELETE FROM versions WHERE id = $1")
                .bind(&current.id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if let Some(event) = audit(&Version::from(current)) {
                insert_audit!(&mut *tx, &event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Deletes previews whose expiry has passed, returning each with its
    /// project's owner and the owner's plan (for audit rows).
    pub async fn prune_expired_previews(
        &self,
        now: Timestamp,
        audit: impl Fn(&Version, &str, Plan) -> Option<AuditEvent> + Send + Sync,
    ) -> HubResult<u64> {
        #[derive(sqlx::FromRow)]
        struct Expired {
            #[sqlx(flatten)]
            version: VersionRow,
            owner_id: String,
            owner_plan: String,
        }
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let expired = sqlx::query_as::<_, Expired>(
                "SELECT v.id, v.project_id, v.label, v.spec_format, v.spec_sha256, v.spec_size, v.title, v.api_version,
                        v.operation_count, v.is_default, v.is_active, v.base_url, v.is_preview, v.pr_number, v.commit_sha,
                        v.branch, v.expires_at, v.created_at, v.updated_at, p.owner_id, o.plan AS owner_plan
                 FROM versions v JOIN projects p ON p.id = v.project_id JOIN users o ON o.id = p.owner_id
                 WHERE v.is_preview AND v.expires_at <= $1",
            )
            .bind(now.as_millis())
            .fetch_all(&mut *tx)
            .await
            .map_err(store_error)?;
            let mut removed = 0;
            for row in expired {
                let owner_plan = row.owner_plan.parse().unwrap_or(Plan::Free);
                let version = Version::from(row.version);
                removed += sqlx::query("DELETE FROM versions WHERE id = $1")
                    .bind(&version.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?
                    .rows_affected();
                if let Some(event) = audit(&version, &row.owner_id, owner_plan) {
                    insert_audit!(&mut *tx, &event)?;
                }
            }
            tx.commit().await.map_err(store_error)?;
            Ok(removed)
        })
    }

    // ---- rate limits -------------------------------------------------------

    /// Counts one request in the fixed window of `window_ms` containing
    /// `now` for `bucket`, and returns the count including this request.
    /// One atomic upsert, so every node shares the same counter.
    pub async fn count_request(&self, bucket: &str, window_ms: i64, now: Timestamp) -> HubResult<i64> {
        let window_start = now.as_millis() - now.as_millis().rem_euclid(window_ms.max(1));
        let (count,): (i64,) = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "INSERT INTO rate_windows (bucket, window_start, count) VALUES ($1, $2, 1)
                 ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1
                 RETURNING count",
            )
            .bind(bucket)
            .bind(window_start)
            .fetch_one(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(count)
    }

    // ---- audit -------------------------------------------------------------

    pub async fn audit_events(&self, account_user_id: &str) -> HubResult<Vec<AuditEvent>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, audit_log::EventRow>(
                "SELECT id, account_user_id, actor_user_id, action, target_type, target_id, project_id, metadata, created_at
                 FROM audit_events WHERE account_user_id = $1 ORDER BY created_at, id",
            )
            .bind(account_user_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(AuditEvent::from).collect())
    }
}

/// Checks a version PATCH against the state table and says what it does.
fn plan_version_transition(current: &VersionRow, changes: &VersionChanges<'_>) -> HubResult<VersionTransition> {
    let becomes_active = changes.is_active.unwrap_or(current.is_active);
    let becomes_default = changes.is_default.unwrap_or(current.is_default);
    // Seed 000's state table: "any write that would leave the project
    // without a default" is 400 VALIDATION_ERROR; only deleting the default
    // is 409 CONFLICT (see `delete_version`).
    if current.is_default && !becomes_default {
        return Err(HubError::validation(
            "is_default",
            "this would leave the project without a default version; promote another version instead",
        ));
    }
    if current.is_default && !becomes_active {
        return Err(HubError::validation(
            "is_active",
            "the default version cannot be deactivated: it would leave the project without a default; promote another version first",
        ));
    }
    let promoted = becomes_default && !current.is_default;
    if promoted && current.is_preview {
        return Err(HubError::conflict("a preview version cannot become the default version"));
    }
    if promoted && !becomes_active {
        return Err(HubError::validation(
            "is_default",
            "an inactive version cannot become the default; set is_active to true in the same request",
        ));
    }
    Ok(VersionTransition {
        promoted,
        deactivated: current.is_active && !becomes_active,
        reactivated: !current.is_active && becomes_active,
        base_url_changed: changes.base_url.is_some_and(|url| url != current.base_url.as_deref()),
    })
}

fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(is_default: bool, is_active: bool, is_preview: bool) -> VersionRow {
        VersionRow {
            id: "v".to_owned(),
            project_id: "p".to_owned(),
            label: "l".to_owned(),
            spec_format: "openapi3".to_owned(),
            spec_sha256: String::new(),
            spec_size: 0,
            title: String::new(),
            api_version: String::new(),
            operation_count: 0,
            is_default,
            is_active,
            base_url: None,
            is_preview,
            pr_number: None,
            commit_sha: None,
            branch: None,
            expires_at: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn patch(is_default: Option<bool>, is_active: Option<bool>) -> VersionChanges<'static> {
        VersionChanges { is_default, is_active, base_url: None }
    }

    #[test]
    fn version_transitions_follow_the_state_table() {
        // (default, active, preview) x (is_default, is_active) -> Ok(promoted, deactivated, reactivated), or
        // the refusal's kind (the seed: leaving no default is a validation error) and a fragment of its message
        type State = (bool, bool, bool);
        type Patch = (Option<bool>, Option<bool>);
        type Outcome = Result<(bool, bool, bool), (&'static str, &'static str)>;
        let cases: [(State, Patch, Outcome); 9] = [
            ((false, true, false), (Some(true), None), Ok((true, false, false))),
            ((true, true, false), (Some(true), None), Ok((false, false, false))),
            ((true, true, false), (Some(false), None), Err(("validation", "without a default version"))),
            ((true, true, false), (None, Some(false)), Err(("validation", "cannot be deactivated"))),
            ((false, true, false), (None, Some(false)), Ok((false, true, false))),
            ((false, false, false), (None, Some(true)), Ok((false, false, true))),
            ((false, false, false), (Some(true), None), Err(("validation", "an inactive version"))),
            ((false, false, false), (Some(true), Some(true)), Ok((true, false, true))),
            ((false, true, true), (Some(true), None), Err(("conflict", "a preview version"))),
        ];
        for ((d, a, p), (set_default, set_active), expected) in cases {
            let outcome = plan_version_transition(&version(d, a, p), &patch(set_default, set_active));
            match (outcome, expected) {
                (Ok(t), Ok(want)) => assert_eq!((t.promoted, t.deactivated, t.reactivated), want),
                (Err(HubError::Conflict { message }), Err(("conflict", want)))
                | (Err(HubError::Validation { message, .. }), Err(("validation", want))) => {
                    assert!(message.contains(want), "{message}");
                }
                (other, want) => panic!("{d} {a} {p} {set_default:?} {set_active:?}: {other:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn like_patterns_are_escaped() {
        assert_eq!(escape_like("50%_off\\"), "50\\%\\_off\\\\");
    }
}

mod assistant;
mod audit_log;
mod blobs;
mod docs;
pub use docs::KeptVectors;
mod inboxes;
mod mock;
mod monitoring;
mod sessions;
mod team;
mod workbench;

pub use workbench::EnvironmentRow;

pub use docs::DocsProjectRow;
pub use team::NewInvitation;
