//! The mock server's tables: settings, overrides (the 50 cap is a database
//! trigger), sequential example counters and the request log.

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::{HubError, HubResult};
use crate::mock::{LogEntry, MockVersion, StoredOverride};
use crate::model::AuditEvent;

/// Rows of the request log kept per project.
pub const LOG_ROWS_PER_PROJECT: i64 = 5000;

/// The trigger's message when a project already has 50 overrides.
const OVERRIDE_LIMIT_MARKER: &str = "mock_override_limit";

fn override_error(err: sqlx::Error) -> HubError {
    if err.to_string().contains(OVERRIDE_LIMIT_MARKER) {
        HubError::MockOverrideLimit { limit: mock::overrides::MAX_OVERRIDES }
    } else {
        store_error(err).into()
    }
}

#[derive(sqlx::FromRow)]
struct OverrideRow {
    id: String,
    spec: String,
}

impl OverrideRow {
    fn into_stored(self) -> HubResult<StoredOverride> {
        let spec = serde_json::from_str(&self.spec)
            .map_err(|e| HubError::Internal(format!("override {} is unreadable: {e}", self.id)))?;
        Ok(StoredOverride { id: self.id, spec })
    }
}

/// The public project a mock request names.
#[derive(sqlx::FromRow)]
pub struct MockProjectRow {
    pub id: String,
    pub is_public: bool,
    pub has_password: bool,
}

impl Store {
    pub async fn mock_project(&self, slug: &str) -> HubResult<Option<MockProjectRow>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MockProjectRow>(
                "SELECT id, is_public, password_hash IS NOT NULL AS has_password FROM projects WHERE slug = $1",
            )
            .bind(slug)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// Active versions that have not expired, the default first, then the
    /// newest.
    pub async fn mock_versions(&self, project_id: &str, now: Timestamp) -> HubResult<Vec<MockVersion>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MockVersion>(
                "SELECT label, spec_sha256, spec_format, is_default, is_preview FROM versions
                 WHERE project_id = $1 AND is_active AND NOT (is_preview AND expires_at <= $2)
                 ORDER BY is_default DESC, created_at DESC, label",
            )
            .bind(project_id)
            .bind(now.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    pub async fn mock_settings(&self, project_id: &str) -> HubResult<Option<String>> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT settings FROM mock_settings WHERE project_id = $1")
                .bind(project_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(settings,)| settings))
    }

    pub async fn put_mock_settings(
        &self,
        project_id: &str,
        settings: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO mock_settings (project_id, settings, updated_at) VALUES ($1, $2, $3)
                 ON CONFLICT (project_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at",
            )
            .bind(project_id)
            .bind(settings)
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

    /// Overrides in the order they were created.
    pub async fn mock_overrides(&self, project_id: &str) -> HubResult<Vec<StoredOverride>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, OverrideRow>(
                "SELECT id, spec FROM mock_overrides WHERE project_id = $1 ORDER BY seq, id",
            )
            .bind(project_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        rows.into_iter().map(OverrideRow::into_stored).collect()
    }

    pub async fn mock_override(&self, project_id: &str, id: &str) -> HubResult<Option<StoredOverride>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, OverrideRow>("SELECT id, spec FROM mock_overrides WHERE project_id = $1 AND id = $2")
                .bind(project_id)
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        row.map(OverrideRow::into_stored).transpose()
    }

    /// Inserts overrides (and, with `replace`, deletes the others first) in
    /// one transaction; the trigger refuses the 51st.
    pub async fn insert_mock_overrides(
        &self,
        project_id: &str,
        rows: &[(String, String)],
        replace: bool,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_project!(&mut *tx, project_id, now.as_millis());
            if replace {
                sqlx::query("DELETE FROM mock_overrides WHERE project_id = $1")
                    .bind(project_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            let (next,): (i64,) =
                sqlx::query_as("SELECT COALESCE(MAX(seq), 0) + 1 FROM mock_overrides WHERE project_id = $1")
                    .bind(project_id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
            for (offset, (id, spec)) in (0_i64..).zip(rows) {
                sqlx::query(
                    "INSERT INTO mock_overrides (id, project_id, seq, spec, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $5)",
                )
                .bind(id)
                .bind(project_id)
                .bind(next + offset)
                .bind(spec)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(override_error)?;
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn update_mock_override(
        &self,
        project_id: &str,
        id: &str,
        spec: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let updated =
                sqlx::query("UPDATE mock_overrides SET spec = $3, updated_at = $4 WHERE project_id = $1 AND id = $2")
                    .bind(project_id)
                    .bind(id)
                    .bind(spec)
                    .bind(now.as_millis())
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?
                    .rows_affected();
            if updated == 0 {
                return Err(HubError::not_found("override"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn delete_mock_override(&self, project_id: &str, id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let deleted = sqlx::query("DELETE FROM mock_overrides WHERE project_id = $1 AND id = $2")
                .bind(project_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if deleted == 0 {
                return Err(HubError::not_found("override"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Advances the `Prefer: example=sequential` counter and returns its
    /// value before this request (0 for the first).
    pub async fn next_mock_sequence(
        &self,
        project_id: &str,
        version: &str,
        method: &str,
        path: &str,
    ) -> HubResult<u64> {
        let (counter,): (i64,) = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "INSERT INTO mock_sequences (project_id, version_label, method, path, counter) VALUES ($1, $2, $3, $4, 1)
                 ON CONFLICT (project_id, version_label, method, path)
                 DO UPDATE SET counter = mock_sequences.counter + 1
                 RETURNING counter",
            )
            .bind(project_id)
            .bind(version)
            .bind(method)
            .bind(path)
            .fetch_one(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(u64::try_from(counter - 1).unwrap_or(0))
    }

    /// Appends log rows and trims each affected project to its last 5000.
    pub async fn append_mock_log(&self, entries: &[LogEntry]) -> HubResult<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut projects: Vec<&str> = entries.iter().map(|e| e.project_id.as_str()).collect();
        projects.sort_unstable();
        projects.dedup();
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for entry in entries {
                sqlx::query(
                    "INSERT INTO mock_request_log
                       (project_id, at, method, path, query, status, synth, override_id, version, duration_us, client_ip)
                     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1)",
                )
                .bind(&entry.project_id)
                .bind(entry.at)
                .bind(&entry.method)
                .bind(&entry.path)
                .bind(&entry.query)
                .bind(entry.status)
                .bind(&entry.synth)
                .bind(&entry.override_id)
                .bind(&entry.version)
                .bind(entry.duration_us)
                .bind(&entry.client_ip)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            for project in projects {
                sqlx::query(
                    "DELETE FROM mock_request_log WHERE project_id = $1 AND id <= (
                        SELECT id FROM mock_request_log WHERE project_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
                )
                .bind(project)
                .bind(LOG_ROWS_PER_PROJECT)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// The newest log rows first, older than `before` (a row id) if given.
    pub async fn mock_log(&self, project_id: &str, limit: i64, before: Option<i64>) -> HubResult<Vec<LogEntry>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, LogEntry>(
                "SELECT id, project_id, at, method, path, query, status, synth, override_id, version, duration_us, client_ip
                 FROM mock_request_log WHERE project_id = $1 AND ($2 IS NULL OR id < $2)
                 ORDER BY id DESC LIMIT $3",
            )
            .bind(project_id)
            .bind(before)
            .bind(limit)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// Deletes log rows older than `cutoff`; returns how many.
    pub async fn prune_mock_log(&self, cutoff: Timestamp) -> HubResult<u64> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM mock_request_log WHERE at < $1")
                .bind(cutoff.as_millis())
                .execute(pool)
                .await
                .map_err(store_error)
                .map(|r| r.rows_affected())
        })?)
    }
}
