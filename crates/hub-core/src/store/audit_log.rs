//! Reading the audit log, its settings, the webhook's outbox and delivery
//! log, and retention.

use kernel::{Page, PageRequest, Timestamp};
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::audit_log::{AuditSettings, Delivery, ResolvedFilter};
use crate::error::{HubError, HubResult};
use crate::model::AuditEvent;

/// An audit row as stored (the store's other reads use it too).
#[derive(sqlx::FromRow)]
pub(super) struct EventRow {
    id: String,
    account_user_id: String,
    actor_user_id: String,
    action: String,
    target_type: String,
    target_id: String,
    project_id: Option<String>,
    metadata: String,
    created_at: i64,
}

impl From<EventRow> for AuditEvent {
    fn from(r: EventRow) -> Self {
        Self {
            id: r.id,
            account_user_id: r.account_user_id,
            actor_user_id: r.actor_user_id,
            action: r.action,
            target_type: r.target_type,
            target_id: r.target_id,
            project_id: r.project_id,
            metadata: serde_json::from_str(&r.metadata).unwrap_or(serde_json::Value::Null),
            created_at: Timestamp::from_millis(r.created_at),
        }
    }
}

const EVENT_COLUMNS: &str =
    "id, account_user_id, actor_user_id, action, target_type, target_id, project_id, metadata, created_at";

/// A bound value of a query built at run time.
#[derive(Clone, Debug)]
enum Arg {
    Text(String),
    Int(i64),
}

/// The `WHERE` clause of a filter (after `account_user_id = $1`) and its
/// values, numbered from `$2`.
fn filter_sql(filter: &ResolvedFilter, args: &mut Vec<Arg>) -> String {
    let mut sql = String::new();
    let mut push = |clause: &str, arg: Arg, args: &mut Vec<Arg>| {
        args.push(arg);
        sql.push_str(&clause.replace('?', &format!("${}", args.len() + 1)));
    };
    if let Some(from) = filter.from {
        push(" AND created_at >= ?", Arg::Int(from), args);
    }
    if let Some(to) = filter.to {
        push(" AND created_at <= ?", Arg::Int(to), args);
    }
    if let Some(actor) = &filter.actor_id {
        push(" AND actor_user_id = ?", Arg::Text(actor.clone()), args);
    }
    if let Some(project) = &filter.project_id {
        push(" AND project_id = ?", Arg::Text(project.clone()), args);
    }
    if let Some(actions) = &filter.actions {
        sql.push_str(" AND action IN (");
        for (i, action) in actions.iter().enumerate() {
            args.push(Arg::Text((*action).to_owned()));
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("${}", args.len() + 1));
        }
        if actions.is_empty() {
            sql.push_str("NULL");
        }
        sql.push(')');
    }
    if let Some(q) = &filter.q {
        // LIKE with its wildcards escaped; lower() on both sides so the
        // match ignores case on either backend.
        let pattern = format!("%{}%", q.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        args.push(Arg::Text(pattern));
        let n = args.len() + 1;
        sql.push_str(&format!(
            " AND (lower(action) LIKE ${n} ESCAPE '\\' OR lower(target_id) LIKE ${n} ESCAPE '\\' \
             OR lower(metadata) LIKE ${n} ESCAPE '\\')"
        ));
    }
    sql
}

macro_rules! bind_args {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                Arg::Text(text) => query.bind(text.clone()),
                Arg::Int(n) => query.bind(*n),
            };
        }
        query
    }};
}

#[derive(sqlx::FromRow)]
struct SettingsRow {
    retention_days: i64,
    webhook_url: Option<String>,
    webhook_secret: Option<String>,
    chat_webhook_url: Option<String>,
    updated_at: i64,
}

impl Store {
    /// The id of the project `slug` when `owner` owns it.
    pub async fn project_id_of_owner(&self, owner: &str, slug: &str) -> HubResult<Option<String>> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT id FROM projects WHERE owner_id = $1 AND slug = $2")
                .bind(owner)
                .bind(slug)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(id,)| id))
    }

    /// One page of an account's rows, newest first, and the filtered total.
    pub async fn audit_page(
        &self,
        account_user_id: &str,
        filter: &ResolvedFilter,
        page: PageRequest,
    ) -> HubResult<Page<AuditEvent>> {
        let mut args = Vec::new();
        let clause = filter_sql(filter, &mut args);
        let list_sql = format!(
            "SELECT {EVENT_COLUMNS} FROM audit_events WHERE account_user_id = $1{clause}
             ORDER BY created_at DESC, id DESC LIMIT {} OFFSET {}",
            page.limit(),
            page.offset()
        );
        let count_sql = format!("SELECT COUNT(*) FROM audit_events WHERE account_user_id = $1{clause}");
        let (rows, total) = with_db!(&self.db, |pool| {
            let rows = bind_args!(
                sqlx::query_as::<_, EventRow>(sqlx::AssertSqlSafe(list_sql.as_str())).bind(account_user_id),
                &args
            )
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            let (total,): (i64,) =
                bind_args!(sqlx::query_as(sqlx::AssertSqlSafe(count_sql.as_str())).bind(account_user_id), &args)
                    .fetch_one(pool)
                    .await
                    .map_err(store_error)?;
            Ok::<_, HubError>((rows, total))
        })?;
        Ok(Page {
            items: rows.into_iter().map(AuditEvent::from).collect(),
            total: u64::try_from(total).unwrap_or(0),
            request: page,
        })
    }

    /// The next `limit` rows after `cursor` (created_at, id), newest first:
    /// keyset paging, so each batch costs the same however deep it is.
    pub async fn audit_batch(
        &self,
        account_user_id: &str,
        filter: &ResolvedFilter,
        cursor: Option<&(i64, String)>,
        limit: i64,
    ) -> HubResult<Vec<AuditEvent>> {
        let mut args = Vec::new();
        let mut clause = filter_sql(filter, &mut args);
        if let Some((at, id)) = cursor {
            args.push(Arg::Int(*at));
            let a = args.len() + 1;
            args.push(Arg::Text(id.clone()));
            let b = args.len() + 1;
            clause.push_str(&format!(" AND (created_at < ${a} OR (created_at = ${a} AND id < ${b}))"));
        }
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM audit_events WHERE account_user_id = $1{clause}
             ORDER BY created_at DESC, id DESC LIMIT {limit}"
        );
        let rows = with_db!(&self.db, |pool| {
            bind_args!(sqlx::query_as::<_, EventRow>(sqlx::AssertSqlSafe(sql.as_str())).bind(account_user_id), &args)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(AuditEvent::from).collect())
    }

    /// The account's settings and its sealed webhook secret.
    pub async fn audit_settings(&self, account_user_id: &str) -> HubResult<Option<(AuditSettings, Option<String>)>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, SettingsRow>(
                "SELECT retention_days, webhook_url, webhook_secret, chat_webhook_url, updated_at
                 FROM audit_settings WHERE account_user_id = $1",
            )
            .bind(account_user_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|r| {
            (
                AuditSettings {
                    retention_days: r.retention_days,
                    webhook_url: r.webhook_url,
                    chat_webhook_url: r.chat_webhook_url,
                    updated_at: Some(Timestamp::from_millis(r.updated_at)),
                },
                r.webhook_secret,
            )
        }))
    }

    pub async fn put_audit_settings(
        &self,
        account_user_id: &str,
        settings: &AuditSettings,
        sealed_secret: Option<&str>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO audit_settings (account_user_id, retention_days, webhook_url, webhook_secret, chat_webhook_url, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (account_user_id) DO UPDATE SET retention_days = excluded.retention_days,
                     webhook_url = excluded.webhook_url, webhook_secret = excluded.webhook_secret,
                     chat_webhook_url = excluded.chat_webhook_url, updated_at = excluded.updated_at",
            )
            .bind(account_user_id)
            .bind(settings.retention_days)
            .bind(&settings.webhook_url)
            .bind(sealed_secret)
            .bind(&settings.chat_webhook_url)
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

    /// Claims up to `limit` due outbox rows for this node until
    /// `claimed_until`; each comes with its webhook (URL, sealed secret)
    /// when the account still has one. The claim re-checks the row's due
    /// time under its lock, so two nodes never claim the same row.
    #[allow(clippy::type_complexity, reason = "a row and its optional target, read once")]
    pub async fn claim_outbox(
        &self,
        now: i64,
        claimed_until: i64,
        limit: i64,
    ) -> HubResult<Vec<(AuditEvent, Option<(String, String)>)>> {
        #[derive(sqlx::FromRow)]
        struct Claimed {
            event_id: String,
        }
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            event: EventRow,
            webhook_url: Option<String>,
            webhook_secret: Option<String>,
        }
        let rows = with_db!(&self.db, |pool| {
            let claimed = sqlx::query_as::<_, Claimed>(sqlx::AssertSqlSafe(format!(
                "UPDATE audit_outbox SET claimed_until = $2
                 WHERE claimed_until < $1 AND event_id IN (
                     SELECT event_id FROM audit_outbox WHERE claimed_until < $1 ORDER BY created_at LIMIT {limit})
                 RETURNING event_id"
            )))
            .bind(now)
            .bind(claimed_until)
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            let mut rows = Vec::with_capacity(claimed.len());
            for Claimed { event_id } in claimed {
                let row = sqlx::query_as::<_, Row>(
                    "SELECT e.id, e.account_user_id, e.actor_user_id, e.action, e.target_type, e.target_id, e.project_id,
                            e.metadata, e.created_at, s.webhook_url, s.webhook_secret
                     FROM audit_events e LEFT JOIN audit_settings s ON s.account_user_id = e.account_user_id
                     WHERE e.id = $1",
                )
                .bind(&event_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)?;
                match row {
                    Some(row) => rows.push(row),
                    // The row was pruned meanwhile: nothing to send.
                    None => {
                        sqlx::query("DELETE FROM audit_outbox WHERE event_id = $1")
                            .bind(&event_id)
                            .execute(pool)
                            .await
                            .map_err(store_error)?;
                    }
                }
            }
            Ok::<_, HubError>(rows)
        })?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let target = r.webhook_url.zip(r.webhook_secret);
                (AuditEvent::from(r.event), target)
            })
            .collect())
    }

    pub async fn finish_outbox(&self, event_id: &str) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM audit_outbox WHERE event_id = $1")
                .bind(event_id)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(|e| HubError::from(store_error(e)))
        })
    }

    pub async fn insert_delivery(&self, account_user_id: &str, delivery: &Delivery) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO audit_deliveries (id, account_user_id, delivery_id, action, status, latency_ms, error, attempted_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(uuid::Uuid::now_v7().to_string())
            .bind(account_user_id)
            .bind(&delivery.delivery_id)
            .bind(&delivery.action)
            .bind(delivery.status.map(i32::from))
            .bind(delivery.latency_ms)
            .bind(&delivery.error)
            .bind(delivery.attempted_at.as_millis())
            .execute(pool)
            .await
            .map(|_| ())
            .map_err(|e| HubError::from(store_error(e)))
        })
    }

    pub async fn audit_deliveries(&self, account_user_id: &str, limit: i64) -> HubResult<Vec<Delivery>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            delivery_id: String,
            action: String,
            status: Option<i32>,
            latency_ms: i64,
            error: Option<String>,
            attempted_at: i64,
        }
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(format!(
                "SELECT delivery_id, action, status, latency_ms, error, attempted_at FROM audit_deliveries
                 WHERE account_user_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT {limit}"
            )))
            .bind(account_user_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows
            .into_iter()
            .map(|r| Delivery {
                delivery_id: r.delivery_id,
                action: r.action,
                status: r.status.and_then(|s| u16::try_from(s).ok()),
                latency_ms: r.latency_ms,
                error: r.error,
                attempted_at: Timestamp::from_millis(r.attempted_at),
            })
            .collect())
    }

    /// Deletes rows past their account's retention (or `default_days`),
    /// delivery log rows past `delivery_days` and expired invitations.
    pub async fn prune_audit(&self, now: Timestamp, default_days: i64, delivery_days: i64) -> HubResult<u64> {
        let now = now.as_millis();
        with_db!(&self.db, |pool| {
            let events = sqlx::query(
                "DELETE FROM audit_events WHERE created_at < $1 - CAST(86400000 AS BIGINT) * COALESCE(
                     (SELECT s.retention_days FROM audit_settings s WHERE s.account_user_id = audit_events.account_user_id),
                     $2)",
            )
            .bind(now)
            .bind(default_days)
            .execute(pool)
            .await
            .map_err(store_error)?
            .rows_affected();
            let deliveries = sqlx::query("DELETE FROM audit_deliveries WHERE attempted_at < $1")
                .bind(now - delivery_days * 86_400_000)
                .execute(pool)
                .await
                .map_err(store_error)?
                .rows_affected();
            let invitations = sqlx::query("DELETE FROM invitations WHERE expires_at <= $1")
                .bind(now)
                .execute(pool)
                .await
                .map_err(store_error)?
                .rows_affected();
            Ok(events + deliveries + invitations)
        })
    }
}
