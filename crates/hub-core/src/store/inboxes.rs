//! Webhook inboxes, their captures and the ingest ledger.

use std::collections::HashMap;

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::{HubError, HubResult};
use crate::inboxes::{
    Capture, Inbox, InboxRecord, InboxState, PendingCapture, StoredInbox, Verification, scheme_from_stored,
};
use crate::model::AuditEvent;
use crate::plans::Plan;

#[derive(sqlx::FromRow)]
struct InboxRow {
    id: String,
    account_id: String,
    project_id: Option<String>,
    project_slug: Option<String>,
    name: String,
    state: String,
    scheme: Option<String>,
    custom: Option<String>,
    secret_sealed: Option<String>,
    tolerance_secs: i64,
    basic_username: Option<String>,
    basic_sealed: Option<String>,
    allow_ips: String,
    refused: i64,
    created_at: i64,
    updated_at: i64,
    plan: String,
}

impl From<InboxRow> for StoredInbox {
    fn from(row: InboxRow) -> Self {
        let verification = scheme_from_stored(row.scheme.as_deref(), row.custom.as_deref())
            .map(|scheme| Verification { scheme, tolerance_secs: u64::try_from(row.tolerance_secs).unwrap_or(300) });
        Self {
            inbox: Inbox {
                id: row.id,
                account_id: row.account_id,
                project_id: row.project_id,
                project_slug: row.project_slug,
                name: row.name,
                state: InboxState::parse(&row.state).unwrap_or(InboxState::Paused),
                verification,
                basic_username: row.basic_username,
                // Written by this crate from a validated list.
                allow_ips: serde_json::from_str(&row.allow_ips).unwrap_or_default(),
                refused: row.refused,
                created_at: Timestamp::from_millis(row.created_at),
                updated_at: Timestamp::from_millis(row.updated_at),
            },
            secret_sealed: row.secret_sealed,
            basic_sealed: row.basic_sealed,
            plan: row.plan.parse().unwrap_or(Plan::Free),
        }
    }
}

#[derive(sqlx::FromRow)]
struct CaptureRow {
    id: String,
    inbox_id: String,
    received_at: i64,
    method: String,
    path: String,
    query: String,
    headers: String,
    body: Vec<u8>,
    source_ip: String,
    verified: Option<bool>,
}

impl From<CaptureRow> for Capture {
    fn from(row: CaptureRow) -> Self {
        Self {
            id: row.id,
            inbox_id: row.inbox_id,
            received_at: Timestamp::from_millis(row.received_at),
            method: row.method,
            path: row.path,
            query: row.query,
            headers: serde_json::from_str(&row.headers).unwrap_or_default(),
            body: row.body,
            source_ip: row.source_ip,
            verified: row.verified,
        }
    }
}

const INBOX_SELECT: &str = "SELECT i.id, i.account_id, i.project_id, p.slug AS project_slug, i.name, i.state, i.scheme,
        i.custom, i.secret_sealed, i.tolerance_secs, i.basic_username, i.basic_sealed, i.allow_ips, i.refused,
        i.created_at, i.updated_at, u.plan
     FROM inboxes i JOIN users u ON u.id = i.account_id LEFT JOIN projects p ON p.id = i.project_id";

const CAPTURE_COLUMNS: &str = "id, inbox_id, received_at, method, path, query, headers, body, source_ip, verified";

/// Binds an inbox's settings, in the column order both statements use
/// (`project_id` to `allow_ips`), to `$query`.
macro_rules! bind_settings {
    ($query:expr, $record:expr, $allow_ips:expr) => {
        $query
            .bind(&$record.project_id)
            .bind(&$record.name)
            .bind($record.state.as_str())
            .bind(&$record.scheme)
            .bind(&$record.custom)
            .bind(&$record.secret_sealed)
            .bind(i64::try_from($record.tolerance_secs).unwrap_or(300))
            .bind(&$record.basic_username)
            .bind(&$record.basic_sealed)
            .bind(&$allow_ips)
    };
}

impl Store {
    /// Stores a new inbox unless the account holds `limit` already.
    pub async fn insert_inbox(
        &self,
        id: &str,
        account_id: &str,
        record: &InboxRecord,
        limit: Option<u32>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let allow_ips = serde_json::to_string(&record.allow_ips).unwrap_or_else(|_| "[]".into());
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_account!(&mut *tx, account_id);
            if let Some(limit) = limit {
                let (held,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM inboxes WHERE account_id = $1")
                    .bind(account_id)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(store_error)?;
                if held >= i64::from(limit) {
                    let (plan,): (String,) = sqlx::query_as("SELECT plan FROM users WHERE id = $1")
                        .bind(account_id)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(store_error)?;
                    return Err(HubError::InboxLimitReached { plan: plan.parse().unwrap_or(Plan::Free), limit });
                }
            }
            let insert = sqlx::query(
                "INSERT INTO inboxes (id, account_id, project_id, name, state, scheme, custom, secret_sealed,
                    tolerance_secs, basic_username, basic_sealed, allow_ips, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)",
            )
            .bind(id)
            .bind(account_id);
            bind_settings!(insert, record, allow_ips)
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

    pub async fn update_inbox(
        &self,
        id: &str,
        record: &InboxRecord,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let allow_ips = serde_json::to_string(&record.allow_ips).unwrap_or_else(|_| "[]".into());
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let update = sqlx::query(
                "UPDATE inboxes SET project_id = $2, name = $3, state = $4, scheme = $5, custom = $6,
                    secret_sealed = $7, tolerance_secs = $8, basic_username = $9, basic_sealed = $10,
                    allow_ips = $11, updated_at = $12
                 WHERE id = $1",
            )
            .bind(id);
            let changed = bind_settings!(update, record, allow_ips)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if changed == 0 {
                return Err(HubError::not_found("inbox"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn delete_inbox(&self, id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let removed = sqlx::query("DELETE FROM inboxes WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if removed == 0 {
                return Err(HubError::not_found("inbox"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn inbox(&self, id: &str) -> HubResult<Option<StoredInbox>> {
        let sql = format!("{INBOX_SELECT} WHERE i.id = $1");
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, InboxRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(StoredInbox::from))
    }

    /// An account's inboxes, oldest first.
    pub async fn inboxes_of(&self, account_id: &str) -> HubResult<Vec<StoredInbox>> {
        let sql = format!("{INBOX_SELECT} WHERE i.account_id = $1 ORDER BY i.created_at, i.id");
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, InboxRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(account_id)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(StoredInbox::from).collect())
    }

    pub async fn count_refusal(&self, inbox_id: &str) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE inboxes SET refused = refused + 1 WHERE id = $1")
                .bind(inbox_id)
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })?;
        Ok(())
    }

    /// Stores a group of captures and their ledger rows in one transaction.
    /// For each capture whose account has a cap: refused (`Err(oldest
    /// counted row's time)`) when the account's ledger holds `cap` rows
    /// newer than its window, counting the group's own captures before it;
    /// the account's write lock is taken once per group.
    pub async fn insert_captures(&self, group: &[PendingCapture]) -> HubResult<Vec<Result<(), i64>>> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            // Per capped account: (rows in the window, the oldest's time).
            let mut counted: HashMap<&str, (i64, Option<i64>)> = HashMap::new();
            let mut outcomes = Vec::with_capacity(group.len());
            for pending in group {
                let capture = &pending.capture;
                if let Some(cap) = pending.cap {
                    let since = capture.received_at.as_millis() - pending.window_ms;
                    let account = pending.account_id.as_str();
                    if !counted.contains_key(account) {
                        lock_account!(&mut *tx, account);
                        let row: (i64, Option<i64>) = sqlx::query_as(
                            "SELECT COUNT(*), MIN(received_at) FROM inbox_ledger WHERE account_id = $1 AND received_at > $2",
                        )
                        .bind(account)
                        .bind(since)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(store_error)?;
                        counted.insert(account, row);
                    }
                    if let Some((count, oldest)) = counted.get_mut(account) {
                        if *count >= i64::from(cap) {
                            outcomes.push(Err(oldest.unwrap_or(since)));
                            continue;
                        }
                        *count += 1;
                        oldest.get_or_insert(capture.received_at.as_millis());
                    }
                }
                let headers = serde_json::to_string(&capture.headers).unwrap_or_else(|_| "[]".into());
                sqlx::query(
                    "INSERT INTO inbox_captures (id, inbox_id, received_at, method, path, query, headers, body, source_ip, verified)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&capture.id)
                .bind(&capture.inbox_id)
                .bind(capture.received_at.as_millis())
                .bind(&capture.method)
                .bind(&capture.path)
                .bind(&capture.query)
                .bind(&headers)
                .bind(&capture.body)
                .bind(&capture.source_ip)
                .bind(capture.verified)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
                sqlx::query("INSERT INTO inbox_ledger (id, account_id, inbox_id, received_at) VALUES ($1, $2, $3, $4)")
                    .bind(uuid::Uuid::now_v7().to_string())
                    .bind(&pending.account_id)
                    .bind(&capture.inbox_id)
                    .bind(capture.received_at.as_millis())
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                outcomes.push(Ok(()));
            }
            tx.commit().await.map_err(store_error)?;
            Ok(outcomes)
        })
    }

    /// Newest first, received after `since` (the plan's window).
    pub async fn captures(
        &self,
        inbox_id: &str,
        since: i64,
        limit: u32,
        before: Option<&str>,
        search: Option<&str>,
    ) -> HubResult<Vec<Capture>> {
        // A capture id is a UUIDv7: later ids sort after earlier ones.
        let before = before.unwrap_or("~");
        let pattern = search
            .map(|s| format!("%{}%", s.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")));
        // The body as text: SQLite reads a blob's bytes as text; PostgreSQL
        // writes non-ASCII bytes of a bytea as escapes, so an ASCII search
        // still finds its words.
        let body_text = match &self.db {
            platform::db::Db::Sqlite(_) => "CAST(body AS TEXT)",
            platform::db::Db::Postgres(_) => "encode(body, 'escape')",
        };
        let sql = format!(
            "SELECT {CAPTURE_COLUMNS} FROM inbox_captures
             WHERE inbox_id = $1 AND received_at > $2 AND id < $3
               AND (CAST($4 AS TEXT) IS NULL OR LOWER(path || ' ' || query || ' ' || headers) LIKE $4 ESCAPE '\\'
                    OR LOWER({body_text}) LIKE $4 ESCAPE '\\')
             ORDER BY id DESC LIMIT $5"
        );
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CaptureRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(inbox_id)
                .bind(since)
                .bind(before)
                .bind(&pattern)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(Capture::from).collect())
    }

    pub async fn capture(&self, inbox_id: &str, capture_id: &str) -> HubResult<Option<Capture>> {
        let sql = format!("SELECT {CAPTURE_COLUMNS} FROM inbox_captures WHERE inbox_id = $1 AND id = $2");
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, CaptureRow>(sqlx::AssertSqlSafe(sql.as_str()))
                .bind(inbox_id)
                .bind(capture_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(Capture::from))
    }

    /// Removes an inbox's captures (the ledger keeps its rows).
    /// Removes one capture (`Some(id)`) or every capture of the inbox.
    pub async fn delete_captures(
        &self,
        inbox_id: &str,
        capture_id: Option<&str>,
        audit: Option<&AuditEvent>,
    ) -> HubResult<u64> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let removed = sqlx::query("DELETE FROM inbox_captures WHERE inbox_id = $1 AND ($2 IS NULL OR id = $2)")
                .bind(inbox_id)
                .bind(capture_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if capture_id.is_some() && removed == 0 {
                // Nothing went: no audit row (the transaction rolls back).
                return Ok(0);
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(removed)
        })
    }

    /// Captures older than their account's plan window (`(plan, cutoff)`
    /// pairs) and ledger rows older than `ledger_cutoff_ms`.
    pub async fn prune_inboxes(&self, windows: &[(Plan, i64)], ledger_cutoff_ms: i64) -> HubResult<u64> {
        let mut removed = 0;
        for (plan, cutoff_ms) in windows {
            removed += with_db!(&self.db, |pool| {
                sqlx::query(
                    "DELETE FROM inbox_captures WHERE received_at < $1 AND inbox_id IN
                        (SELECT i.id FROM inboxes i JOIN users u ON u.id = i.account_id WHERE u.plan = $2)",
                )
                .bind(cutoff_ms)
                .bind(plan.as_str())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
                .map_err(store_error)
            })?;
        }
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM inbox_ledger WHERE received_at < $1")
                .bind(ledger_cutoff_ms)
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })?;
        Ok(removed)
    }
}
