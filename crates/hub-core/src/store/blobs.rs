//! The blob collector's table (`blob_gc`) and the references it reads.

use std::collections::HashSet;

use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::HubResult;

impl Store {
    /// Every blob a version (previews included) refers to.
    pub async fn referenced_blobs(&self) -> HubResult<HashSet<String>> {
        let rows: Vec<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT DISTINCT spec_sha256 FROM versions").fetch_all(pool).await.map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(sha,)| sha).collect())
    }

    /// Notes `unreferenced` blobs as seen at `now` (keeping an earlier
    /// note), and forgets notes of blobs referenced again.
    pub async fn note_unreferenced_blobs(&self, unreferenced: &[String], now: i64) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            for sha in unreferenced {
                sqlx::query(
                    "INSERT INTO blob_gc (sha256, unreferenced_since) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING",
                )
                .bind(sha)
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            sqlx::query("DELETE FROM blob_gc WHERE sha256 IN (SELECT spec_sha256 FROM versions)")
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    /// Blobs noted unreferenced at or before `before`.
    pub async fn blobs_due_for_deletion(&self, before: i64) -> HubResult<Vec<String>> {
        let rows: Vec<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT sha256 FROM blob_gc WHERE unreferenced_since <= $1 ORDER BY sha256")
                .bind(before)
                .fetch_all(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(sha,)| sha).collect())
    }

    /// Deletes blob `sha` with `delete` while holding its `blob_gc` row:
    /// only when the row is still due and no version refers to the blob.
    /// The search's rows of the document (its sections and their vectors)
    /// are deleted in the same transaction.
    /// A push referring to it waits for this transaction, then finds the
    /// blob gone and stores it again. Returns whether it was deleted.
    pub async fn delete_unreferenced_blob<F>(&self, sha: &str, before: i64, delete: F) -> HubResult<bool>
    where
        F: std::future::Future<Output = HubResult<()>> + Send,
    {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let claimed = sqlx::query(
                "DELETE FROM blob_gc WHERE sha256 = $1 AND unreferenced_since <= $2
                   AND NOT EXISTS (SELECT 1 FROM versions WHERE spec_sha256 = $1)",
            )
            .bind(sha)
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected()
                > 0;
            if !claimed {
                return Ok(false);
            }
            // What the search keeps of the document goes with it.
            for delete_rows in [
                "DELETE FROM docs_search WHERE spec_sha256 = $1",
                "DELETE FROM docs_search_documents WHERE spec_sha256 = $1",
                "DELETE FROM docs_search_vectors WHERE spec_sha256 = $1",
                "DELETE FROM docs_search_claims WHERE spec_sha256 = $1",
            ] {
                sqlx::query(delete_rows).bind(sha).execute(&mut *tx).await.map_err(store_error)?;
            }
            delete.await?;
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }
}
