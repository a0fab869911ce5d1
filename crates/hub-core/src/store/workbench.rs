//! Saved requests, environments, members' chosen environments and runs.

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;
use workbench::RequestDraft;

use super::Store;
use crate::error::{HubError, HubResult};
use crate::model::AuditEvent;
use crate::workbench::{Environment, RunRecord, SavedRequest, StoredEnvironment};

/// An environment's columns as written.
pub struct EnvironmentRow<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub variables: &'a [(String, String)],
    /// `(name, sealed value)`.
    pub secrets: &'a [(String, String)],
}

fn encode_pairs(pairs: &[(String, String)]) -> String {
    serde_json::to_string(pairs).unwrap_or_else(|_| "[]".to_owned())
}

fn decode_pairs(text: &str) -> Vec<(String, String)> {
    // Written by this module from validated pairs.
    serde_json::from_str(text).unwrap_or_default()
}

#[derive(sqlx::FromRow)]
struct EnvironmentDbRow {
    id: String,
    project_id: String,
    name: String,
    variables: String,
    secrets: String,
    is_default: bool,
    created_at: i64,
    updated_at: i64,
}

impl From<EnvironmentDbRow> for StoredEnvironment {
    fn from(row: EnvironmentDbRow) -> Self {
        let secrets = decode_pairs(&row.secrets);
        Self {
            environment: Environment {
                id: row.id,
                project_id: row.project_id,
                name: row.name,
                variables: decode_pairs(&row.variables),
                secret_names: secrets.iter().map(|(n, _)| n.clone()).collect(),
                is_default: row.is_default,
                created_at: Timestamp::from_millis(row.created_at),
                updated_at: Timestamp::from_millis(row.updated_at),
            },
            secrets,
        }
    }
}

#[derive(sqlx::FromRow)]
struct RequestDbRow {
    id: String,
    project_id: String,
    folder: Option<String>,
    name: String,
    method: String,
    url: String,
    headers: String,
    query: String,
    body: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl From<RequestDbRow> for SavedRequest {
    fn from(row: RequestDbRow) -> Self {
        Self {
            id: row.id,
            project_id: row.project_id,
            draft: RequestDraft {
                name: row.name,
                folder: row.folder,
                method: row.method,
                url: row.url,
                headers: decode_pairs(&row.headers),
                query: decode_pairs(&row.query),
                body: row.body,
            },
            created_at: Timestamp::from_millis(row.created_at),
            updated_at: Timestamp::from_millis(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct RunDbRow {
    id: String,
    request_id: String,
    user_id: Option<String>,
    environment: Option<String>,
    resolved_url: String,
    status: Option<i32>,
    latency_ms: i64,
    size: i64,
    error: Option<String>,
    created_at: i64,
}

impl From<RunDbRow> for RunRecord {
    fn from(row: RunDbRow) -> Self {
        Self {
            id: row.id,
            request_id: row.request_id,
            user_id: row.user_id,
            environment: row.environment,
            resolved_url: row.resolved_url,
            status: row.status.and_then(|s| u16::try_from(s).ok()),
            latency_ms: row.latency_ms,
            size: row.size,
            error: row.error,
            created_at: Timestamp::from_millis(row.created_at),
        }
    }
}

const ENVIRONMENT_COLUMNS: &str = "id, project_id, name, variables, secrets, is_default, created_at, updated_at";
const REQUEST_COLUMNS: &str = "id, project_id, folder, name, method, url, headers, query, body, created_at, updated_at";

fn unique_name(err: sqlx::Error) -> HubError {
    match &err {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            HubError::conflict("an environment of this project already has this name")
        }
        _ => HubError::from(store_error(err)),
    }
}

impl Store {
    pub async fn environments(&self, project_id: &str) -> HubResult<Vec<StoredEnvironment>> {
        let sql = format!("SELECT {ENVIRONMENT_COLUMNS} FROM environments WHERE project_id = $1 ORDER BY name, id");
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, EnvironmentDbRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(project_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(StoredEnvironment::from).collect())
    }

    pub async fn environment(&self, project_id: &str, id: &str) -> HubResult<Option<StoredEnvironment>> {
        let sql = format!("SELECT {ENVIRONMENT_COLUMNS} FROM environments WHERE project_id = $1 AND id = $2");
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, EnvironmentDbRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(project_id)
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(StoredEnvironment::from))
    }

    /// Stores a new environment unless the project holds the most it may;
    /// `make_default` moves the project's default to it.
    pub async fn insert_environment(
        &self,
        project_id: &str,
        row: &EnvironmentRow<'_>,
        make_default: bool,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let (variables, secrets) = (encode_pairs(row.variables), encode_pairs(row.secrets));
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now.as_millis());
            let (held,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM environments WHERE project_id = $1")
                .bind(project_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(store_error)?;
            if held >= i64::try_from(workbench::MAX_ENVIRONMENTS).unwrap_or(i64::MAX) {
                return Err(HubError::conflict(format!(
                    "a project holds at most {} environments",
                    workbench::MAX_ENVIRONMENTS
                )));
            }
            if make_default {
                sqlx::query("UPDATE environments SET is_default = FALSE WHERE project_id = $1 AND is_default")
                    .bind(project_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            sqlx::query(
                "INSERT INTO environments (id, project_id, name, variables, secrets, is_default, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
            )
            .bind(row.id)
            .bind(project_id)
            .bind(row.name)
            .bind(&variables)
            .bind(&secrets)
            .bind(make_default)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(unique_name)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// `make_default`: `Some(true)` moves the default here, `Some(false)`
    /// removes it from here, `None` leaves it.
    pub async fn update_environment(
        &self,
        project_id: &str,
        row: &EnvironmentRow<'_>,
        make_default: Option<bool>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let (variables, secrets) = (encode_pairs(row.variables), encode_pairs(row.secrets));
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now.as_millis());
            if make_default == Some(true) {
                sqlx::query(
                    "UPDATE environments SET is_default = FALSE WHERE project_id = $1 AND is_default AND id <> $2",
                )
                .bind(project_id)
                .bind(row.id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            let changed = sqlx::query(
                "UPDATE environments SET name = $3, variables = $4, secrets = $5,
                    is_default = COALESCE($6, is_default), updated_at = $7
                 WHERE project_id = $1 AND id = $2",
            )
            .bind(project_id)
            .bind(row.id)
            .bind(row.name)
            .bind(&variables)
            .bind(&secrets)
            .bind(make_default)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(unique_name)?
            .rows_affected();
            if changed == 0 {
                return Err(HubError::not_found("environment"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn delete_environment(&self, project_id: &str, id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM environment_choices WHERE environment_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let removed = sqlx::query("DELETE FROM environments WHERE project_id = $1 AND id = $2")
                .bind(project_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if removed == 0 {
                return Err(HubError::not_found("environment"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn environment_choice(&self, user_id: &str, project_id: &str) -> HubResult<Option<String>> {
        let found: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT environment_id FROM environment_choices WHERE user_id = $1 AND project_id = $2")
                .bind(user_id)
                .bind(project_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(found.map(|(id,)| id))
    }

    /// Sets (or with `None` clears) a member's environment for a project.
    pub async fn choose_environment(
        &self,
        user_id: &str,
        project_id: &str,
        environment_id: Option<&str>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM environment_choices WHERE user_id = $1 AND project_id = $2")
                .bind(user_id)
                .bind(project_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if let Some(id) = environment_id {
                sqlx::query(
                    "INSERT INTO environment_choices (user_id, project_id, environment_id) VALUES ($1, $2, $3)",
                )
                .bind(user_id)
                .bind(project_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn saved_requests(&self, project_id: &str) -> HubResult<Vec<SavedRequest>> {
        let sql = format!(
            "SELECT {REQUEST_COLUMNS} FROM saved_requests WHERE project_id = $1 ORDER BY COALESCE(folder, ''), name, id"
        );
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, RequestDbRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(project_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(SavedRequest::from).collect())
    }

    pub async fn saved_request(&self, project_id: &str, id: &str) -> HubResult<Option<SavedRequest>> {
        let sql = format!("SELECT {REQUEST_COLUMNS} FROM saved_requests WHERE project_id = $1 AND id = $2");
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, RequestDbRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(project_id)
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(SavedRequest::from))
    }

    /// Stores new requests (one, or an import's) in one transaction, unless
    /// the project would hold more than it may.
    pub async fn insert_saved_requests(
        &self,
        project_id: &str,
        requests: &[(String, RequestDraft)],
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now.as_millis());
            let (held,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM saved_requests WHERE project_id = $1")
                .bind(project_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(store_error)?;
            let adding = i64::try_from(requests.len()).unwrap_or(i64::MAX);
            if held.saturating_add(adding) > i64::try_from(workbench::MAX_REQUESTS).unwrap_or(i64::MAX) {
                return Err(HubError::conflict(format!(
                    "a project holds at most {} saved requests ({held} now)",
                    workbench::MAX_REQUESTS
                )));
            }
            for (at, (id, draft)) in requests.iter().enumerate() {
                // One millisecond apart, so an import keeps its order.
                let at = now.as_millis() + i64::try_from(at).unwrap_or(0);
                sqlx::query(
                    "INSERT INTO saved_requests (id, project_id, folder, name, method, url, headers, query, body, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
                )
                .bind(id)
                .bind(project_id)
                .bind(&draft.folder)
                .bind(&draft.name)
                .bind(&draft.method)
                .bind(&draft.url)
                .bind(encode_pairs(&draft.headers))
                .bind(encode_pairs(&draft.query))
                .bind(&draft.body)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn update_saved_request(
        &self,
        project_id: &str,
        id: &str,
        draft: &RequestDraft,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let changed = sqlx::query(
                "UPDATE saved_requests SET folder = $3, name = $4, method = $5, url = $6, headers = $7, query = $8,
                    body = $9, updated_at = $10
                 WHERE project_id = $1 AND id = $2",
            )
            .bind(project_id)
            .bind(id)
            .bind(&draft.folder)
            .bind(&draft.name)
            .bind(&draft.method)
            .bind(&draft.url)
            .bind(encode_pairs(&draft.headers))
            .bind(encode_pairs(&draft.query))
            .bind(&draft.body)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            if changed == 0 {
                return Err(HubError::not_found("request"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn delete_saved_request(&self, project_id: &str, id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM request_runs WHERE request_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            let removed = sqlx::query("DELETE FROM saved_requests WHERE project_id = $1 AND id = $2")
                .bind(project_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if removed == 0 {
                return Err(HubError::not_found("request"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Keeps a run and drops the request's runs beyond the newest `keep`.
    pub async fn insert_run(&self, run: &RunRecord, keep: usize) -> HubResult<()> {
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO request_runs (id, request_id, user_id, environment, resolved_url, status, latency_ms, size, error, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(&run.id)
            .bind(&run.request_id)
            .bind(&run.user_id)
            .bind(&run.environment)
            .bind(&run.resolved_url)
            .bind(run.status.map(i32::from))
            .bind(run.latency_ms)
            .bind(run.size)
            .bind(&run.error)
            .bind(run.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "DELETE FROM request_runs WHERE request_id = $1 AND id NOT IN
                    (SELECT id FROM request_runs WHERE request_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2)",
            )
            .bind(&run.request_id)
            .bind(keep)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// A request's kept runs, newest first.
    pub async fn runs(&self, request_id: &str) -> HubResult<Vec<RunRecord>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, RunDbRow>(
                "SELECT id, request_id, user_id, environment, resolved_url, status, latency_ms, size, error, created_at
                 FROM request_runs WHERE request_id = $1 ORDER BY created_at DESC, id DESC",
            )
            .bind(request_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(RunRecord::from).collect())
    }

    /// One audit row on its own (an event that changes nothing else, such
    /// as an export of secrets).
    pub async fn insert_audit_event(&self, event: &AuditEvent) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            insert_audit!(&mut *tx, event)?;
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }
}
