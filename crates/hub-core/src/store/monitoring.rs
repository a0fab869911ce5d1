//! Monitors, their checks and the credentials probes send.

use std::collections::{BTreeMap, HashMap, HashSet};

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::HubResult;
use crate::model::AuditEvent;
use crate::monitoring::{Check, CheckState, Monitor, OperationKey, Segment, Target};

/// Rows of one insert statement when a round's checks are written.
const INSERT_BATCH: usize = 200;

#[derive(sqlx::FromRow)]
struct MonitorRow {
    id: String,
    project_id: String,
    version_id: String,
    method: String,
    path: String,
    operation_id: Option<String>,
    monitored: bool,
    path_params: String,
    query: String,
    updated_at: i64,
}

impl From<MonitorRow> for Monitor {
    fn from(row: MonitorRow) -> Self {
        Self {
            id: row.id,
            project_id: row.project_id,
            version_id: row.version_id,
            method: row.method,
            path: row.path,
            operation_id: row.operation_id,
            monitored: row.monitored,
            // Written by this crate from validated maps; anything else reads
            // as no values.
            path_params: serde_json::from_str(&row.path_params).unwrap_or_default(),
            query: serde_json::from_str(&row.query).unwrap_or_default(),
            updated_at: Timestamp::from_millis(row.updated_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct TargetRow {
    #[sqlx(flatten)]
    monitor: MonitorRow,
    spec_sha256: String,
    version_base_url: Option<String>,
    project_base_url: Option<String>,
}

#[derive(sqlx::FromRow)]
struct CheckRow {
    monitor_id: String,
    checked_at: i64,
    state: String,
    status_code: Option<i64>,
    latency_ms: i64,
    snippet: String,
    error: Option<String>,
    schema_valid: Option<bool>,
}

impl CheckRow {
    fn into_check(self) -> (String, Check) {
        let check = Check {
            checked_at: Timestamp::from_millis(self.checked_at),
            state: CheckState::parse(&self.state).unwrap_or(CheckState::Down),
            status_code: self.status_code.and_then(|c| u16::try_from(c).ok()),
            latency_ms: self.latency_ms,
            snippet: self.snippet,
            error: self.error,
            schema_valid: self.schema_valid,
        };
        (self.monitor_id, check)
    }
}

macro_rules! monitor_columns {
    () => {
        "m.id, m.project_id, m.version_id, m.method, m.path, m.operation_id, m.monitored, m.path_params, m.query, m.updated_at"
    };
}

/// Binds a check's nine columns, in `monitor_checks`' order, to `$query`.
macro_rules! bind_check {
    ($query:expr, $monitor_id:expr, $check:expr) => {
        $query
            .bind(uuid::Uuid::now_v7().to_string())
            .bind($monitor_id)
            .bind($check.checked_at.as_millis())
            .bind($check.state.as_str())
            .bind($check.status_code.map(i64::from))
            .bind($check.latency_ms)
            .bind(&$check.snippet)
            .bind(&$check.error)
            .bind($check.schema_valid)
    };
}

macro_rules! check_columns {
    () => {
        "c.monitor_id, c.checked_at, c.state, c.status_code, c.latency_ms, c.snippet, c.error, c.schema_valid"
    };
}

impl Store {
    /// Makes a version's monitor rows match its operations: new ones are
    /// added unmonitored, gone ones are removed with their checks, the rest
    /// keep their settings.
    pub async fn sync_monitors(
        &self,
        project_id: &str,
        version_id: &str,
        operations: &[OperationKey],
        now: Timestamp,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let existing: Vec<(String, String, String)> =
                sqlx::query_as("SELECT id, method, path FROM monitors WHERE version_id = $1")
                    .bind(version_id)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(store_error)?;
            let wanted: HashSet<(&str, &str)> = operations.iter().map(|(m, p, _)| (m.as_str(), p.as_str())).collect();
            for (id, method, path) in &existing {
                if !wanted.contains(&(method.as_str(), path.as_str())) {
                    sqlx::query("DELETE FROM monitors WHERE id = $1")
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?;
                }
            }
            for (position, (method, path, operation_id)) in operations.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO monitors (id, project_id, version_id, method, path, operation_id, position, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                     ON CONFLICT (version_id, method, path)
                     DO UPDATE SET operation_id = excluded.operation_id, position = excluded.position",
                )
                .bind(uuid::Uuid::now_v7().to_string())
                .bind(project_id)
                .bind(version_id)
                .bind(method)
                .bind(path)
                .bind(operation_id)
                .bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn monitor_count(&self, version_id: &str) -> HubResult<i64> {
        let (count,): (i64,) = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT COUNT(*) FROM monitors WHERE version_id = $1")
                .bind(version_id)
                .fetch_one(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(count)
    }

    /// A version's monitors in the description's order.
    pub async fn monitors_of_version(&self, version_id: &str, monitored_only: bool) -> HubResult<Vec<Monitor>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MonitorRow>(concat!(
                "SELECT ",
                monitor_columns!(),
                " FROM monitors m WHERE m.version_id = $1 AND (m.monitored OR NOT $2) ORDER BY m.position, m.id"
            ))
            .bind(version_id)
            .bind(monitored_only)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(Monitor::from).collect())
    }

    pub async fn monitor(&self, id: &str) -> HubResult<Option<Monitor>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MonitorRow>(concat!("SELECT ", monitor_columns!(), " FROM monitors m WHERE m.id = $1"))
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(Monitor::from))
    }

    pub async fn update_monitor(&self, monitor: &Monitor, audit: Option<&AuditEvent>) -> HubResult<()> {
        let path_params = serde_json::to_string(&monitor.path_params).unwrap_or_else(|_| "{}".to_owned());
        let query = serde_json::to_string(&monitor.query).unwrap_or_else(|_| "{}".to_owned());
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "UPDATE monitors SET monitored = $2, path_params = $3, query = $4, updated_at = $5 WHERE id = $1",
            )
            .bind(&monitor.id)
            .bind(monitor.monitored)
            .bind(&path_params)
            .bind(&query)
            .bind(monitor.updated_at.as_millis())
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

    /// The newest check of each monitor of a version.
    pub async fn latest_checks(&self, version_id: &str) -> HubResult<HashMap<String, Check>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CheckRow>(concat!(
                "SELECT ",
                check_columns!(),
                " FROM monitor_checks c JOIN monitors m ON m.id = c.monitor_id
                 WHERE m.version_id = $1 AND c.id = (
                     SELECT c2.id FROM monitor_checks c2 WHERE c2.monitor_id = m.id
                     ORDER BY c2.checked_at DESC, c2.id DESC LIMIT 1)"
            ))
            .bind(version_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(CheckRow::into_check).collect())
    }

    /// The checks of a version's monitors since `since`, oldest first, per
    /// monitor.
    pub async fn window_segments(
        &self,
        version_id: &str,
        since: Timestamp,
    ) -> HubResult<HashMap<String, Vec<Segment>>> {
        let rows: Vec<(String, i64, String)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "SELECT c.monitor_id, c.checked_at, c.state FROM monitor_checks c JOIN monitors m ON m.id = c.monitor_id
                 WHERE m.version_id = $1 AND c.checked_at > $2 ORDER BY c.checked_at, c.id",
            )
            .bind(version_id)
            .bind(since.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        let mut out: HashMap<String, Vec<Segment>> = HashMap::new();
        for (monitor_id, at, state) in rows {
            let state = CheckState::parse(&state).unwrap_or(CheckState::Down);
            out.entry(monitor_id).or_default().push(Segment { checked_at: Timestamp::from_millis(at), state });
        }
        Ok(out)
    }

    /// A monitor's newest checks first.
    pub async fn checks_of(&self, monitor_id: &str, limit: u32) -> HubResult<Vec<Check>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CheckRow>(concat!(
                "SELECT ",
                check_columns!(),
                " FROM monitor_checks c WHERE c.monitor_id = $1 ORDER BY c.checked_at DESC, c.id DESC LIMIT $2"
            ))
            .bind(monitor_id)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|r| r.into_check().1).collect())
    }

    /// Every monitored operation a round probes: its version active and not
    /// an expired preview, its owner's plan Pro or Business.
    pub async fn monitored_targets(&self, now: Timestamp) -> HubResult<Vec<Target>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, TargetRow>(concat!(
                "SELECT ",
                monitor_columns!(),
                ", v.spec_sha256, v.base_url AS version_base_url, p.base_url AS project_base_url
                 FROM monitors m
                 JOIN versions v ON v.id = m.version_id
                 JOIN projects p ON p.id = m.project_id
                 JOIN users u ON u.id = p.owner_id
                 WHERE m.monitored AND v.is_active AND NOT (v.is_preview AND v.expires_at <= $1)
                   AND u.plan IN ('pro', 'business')
                 ORDER BY v.spec_sha256, m.position"
            ))
            .bind(now.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows
            .into_iter()
            .map(|row| Target {
                monitor: Monitor::from(row.monitor),
                spec_sha256: row.spec_sha256,
                version_base_url: row.version_base_url,
                project_base_url: row.project_base_url,
            })
            .collect())
    }

    /// Writes a round's checks, a batch per statement.
    pub async fn insert_checks(&self, checks: &[(String, Check)]) -> HubResult<()> {
        for batch in checks.chunks(INSERT_BATCH) {
            let mut sql = String::from(
                "INSERT INTO monitor_checks (id, monitor_id, checked_at, state, status_code, latency_ms, snippet, error, schema_valid) VALUES ",
            );
            for i in 0..batch.len() {
                let n = i * 9;
                if i > 0 {
                    sql.push(',');
                }
                sql.push_str(&format!(
                    "(${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${})",
                    n + 1,
                    n + 2,
                    n + 3,
                    n + 4,
                    n + 5,
                    n + 6,
                    n + 7,
                    n + 8,
                    n + 9
                ));
            }
            with_db!(&self.db, |pool| {
                let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
                for (monitor_id, check) in batch {
                    query = bind_check!(query, monitor_id, check);
                }
                // A monitor deleted while its probe was in flight (its
                // version re-pushed) fails the foreign key: the batch is
                // then written row by row, skipping the gone monitor.
                match query.execute(pool).await {
                    Ok(_) => Ok::<(), crate::error::HubError>(()),
                    Err(_) => {
                        for (monitor_id, check) in batch {
                            bind_check!(sqlx::query(
                                "INSERT INTO monitor_checks (id, monitor_id, checked_at, state, status_code, latency_ms, snippet, error, schema_valid)
                                 SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM monitors WHERE id = $2)",
                            ),
                                monitor_id, check)
                            .execute(pool)
                            .await
                            .map_err(store_error)?;
                        }
                        Ok(())
                    }
                }
            })?;
        }
        Ok(())
    }

    pub async fn version_label(&self, version_id: &str) -> HubResult<Option<String>> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT label FROM versions WHERE id = $1")
                .bind(version_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(label,)| label))
    }

    pub async fn prune_checks(&self, before: Timestamp) -> HubResult<u64> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM monitor_checks WHERE checked_at < $1")
                .bind(before.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?)
    }

    /// Names of the schemes with a stored credential.
    pub async fn credential_names(&self, project_id: &str) -> HubResult<Vec<String>> {
        let rows: Vec<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT scheme FROM monitor_credentials WHERE project_id = $1 ORDER BY scheme")
                .bind(project_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(s,)| s).collect())
    }

    /// (scheme, sealed value) of a project, for a round.
    pub async fn credentials(&self, project_id: &str) -> HubResult<BTreeMap<String, String>> {
        let rows: Vec<(String, String)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT scheme, sealed FROM monitor_credentials WHERE project_id = $1")
                .bind(project_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().collect())
    }

    /// Stores a sealed credential, or deletes it (`None`). Returns false when
    /// there was nothing to delete.
    pub async fn set_credential(
        &self,
        project_id: &str,
        scheme: &str,
        sealed: Option<&str>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<bool> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let changed = match sealed {
                Some(sealed) => sqlx::query(
                    "INSERT INTO monitor_credentials (project_id, scheme, sealed, updated_at) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (project_id, scheme) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at",
                )
                .bind(project_id)
                .bind(scheme)
                .bind(sealed)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected(),
                None => sqlx::query("DELETE FROM monitor_credentials WHERE project_id = $1 AND scheme = $2")
                    .bind(project_id)
                    .bind(scheme)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?
                    .rows_affected(),
            };
            if changed == 0 {
                return Ok(false);
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }
}
