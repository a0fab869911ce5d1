//! The docs assistant's tables: the usage ledger and chat conversations.

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::HubResult;

impl Store {
    /// What `account` has spent on `meter` in the window starting at
    /// `window_start` (ms).
    pub async fn usage(&self, account: &str, meter: &str, window_start: i64) -> HubResult<i64> {
        let row: Option<(i64,)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "SELECT amount FROM usage_ledger WHERE account_user_id = $1 AND meter = $2 AND window_start = $3",
            )
            .bind(account)
            .bind(meter)
            .bind(window_start)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map_or(0, |(amount,)| amount))
    }

    /// Adds `amount` to the window and returns the new total (one atomic
    /// upsert, so nodes never lose each other's counts).
    pub async fn add_usage(&self, account: &str, meter: &str, window_start: i64, amount: i64) -> HubResult<i64> {
        let (total,): (i64,) = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "INSERT INTO usage_ledger (account_user_id, meter, window_start, amount) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (account_user_id, meter, window_start)
                 DO UPDATE SET amount = usage_ledger.amount + excluded.amount
                 RETURNING amount",
            )
            .bind(account)
            .bind(meter)
            .bind(window_start)
            .bind(amount)
            .fetch_one(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(total)
    }

    /// Adds `amount` only if the total stays within `limit`; the new total,
    /// or `None` when it would not (nothing is counted then). Atomic on
    /// every store: the condition is part of the upsert.
    pub async fn take_usage(
        &self,
        account: &str,
        meter: &str,
        window_start: i64,
        amount: i64,
        limit: i64,
    ) -> HubResult<Option<i64>> {
        if amount > limit {
            return Ok(None);
        }
        let row: Option<(i64,)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "INSERT INTO usage_ledger (account_user_id, meter, window_start, amount) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (account_user_id, meter, window_start)
                 DO UPDATE SET amount = usage_ledger.amount + excluded.amount
                 WHERE usage_ledger.amount + excluded.amount <= $5
                 RETURNING amount",
            )
            .bind(account)
            .bind(meter)
            .bind(window_start)
            .bind(amount)
            .bind(limit)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(total,)| total))
    }

    /// A conversation's kept messages (JSON), when it exists for this
    /// project and was active after `since`.
    pub async fn conversation(&self, id: &str, project_id: &str, since: Timestamp) -> HubResult<Option<String>> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "SELECT messages FROM chat_conversations WHERE id = $1 AND project_id = $2 AND updated_at > $3",
            )
            .bind(id)
            .bind(project_id)
            .bind(since.as_millis())
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(messages,)| messages))
    }

    /// Stores a conversation's kept messages and forgets conversations idle
    /// since `forget_before`.
    pub async fn save_conversation(
        &self,
        id: &str,
        project_id: &str,
        messages: &str,
        now: Timestamp,
        forget_before: Timestamp,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM chat_conversations WHERE updated_at <= $1")
                .bind(forget_before.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO chat_conversations (id, project_id, messages, updated_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (id) DO UPDATE SET messages = excluded.messages, updated_at = excluded.updated_at
                 WHERE chat_conversations.project_id = excluded.project_id",
            )
            .bind(id)
            .bind(project_id)
            .bind(messages)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    /// Deletes rate windows that started before `windows_before` and ledger
    /// windows that started before `ledger_before`: counters anonymous
    /// callers create (one per visitor and hour) must not pile up.
    pub async fn prune_counters(&self, windows_before: Timestamp, ledger_before: Timestamp) -> HubResult<u64> {
        let removed = with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let windows = sqlx::query("DELETE FROM rate_windows WHERE window_start < $1")
                .bind(windows_before.as_millis())
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)?;
            let ledger = sqlx::query("DELETE FROM usage_ledger WHERE window_start < $1")
                .bind(ledger_before.as_millis())
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok::<u64, kernel::StoreError>(windows + ledger)
        })?;
        Ok(removed)
    }
}
