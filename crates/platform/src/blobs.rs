//! Content-addressed blob storage.
//!
//! Uploaded documents are stored once per distinct content under their
//! SHA-256. A single node keeps them in a directory of the data dir; nodes
//! sharing PostgreSQL keep them in the database's `blobs` table so that every
//! node reads what any node wrote without extra infrastructure.

use std::path::PathBuf;

use async_trait::async_trait;
use bytes::Bytes;
use kernel::StoreError;

use crate::crypto::sha256_hex;
use crate::db::{Db, store_error};
use crate::with_db;

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("blob storage i/o failed: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Stores and fetches immutable blobs by the hex SHA-256 of their content.
#[async_trait]
pub trait BlobStore: Send + Sync + std::fmt::Debug {
    /// Stores `data` (a no-op when the same content exists) and returns its hash.
    async fn put(&self, data: Bytes) -> Result<String, BlobError>;
    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError>;
}

/// Blobs as files `<root>/<first two hex>/<rest>`.
#[derive(Debug, Clone)]
pub struct FsBlobStore {
    root: PathBuf,
}

impl FsBlobStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    fn path_of(&self, sha256: &str) -> Option<PathBuf> {
        // Hashes come from our own database, but a path is only ever built from
        // exactly 64 lowercase hex digits.
        let valid = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let (dir, file) = (sha256.get(..2)?, sha256.get(2..)?);
        valid.then(|| self.root.join(dir).join(file))
    }
}

#[async_trait]
impl BlobStore for FsBlobStore {
    async fn put(&self, data: Bytes) -> Result<String, BlobError> {
        let root = self.root.clone();
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let sha = sha256_hex(&data);
            let path = this.path_of(&sha).ok_or_else(|| std::io::Error::other("invalid blob hash"))?;
            if path.exists() {
                return Ok(sha);
            }
            let dir = path.parent().map_or_else(|| root.clone(), PathBuf::from);
            std::fs::create_dir_all(&dir)?;
            // Write to a temporary name and rename, so a reader never sees a
            // partly written blob and a crash leaves no corrupt one behind.
            let tmp = dir.join(format!(".{}.tmp-{}", sha, uuid::Uuid::new_v4()));
            std::fs::write(&tmp, &data)?;
            std::fs::rename(&tmp, &path)?;
            Ok(sha)
        })
        .await
        .map_err(|e| BlobError::Io(std::io::Error::other(e)))?
    }

    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError> {
        let Some(path) = self.path_of(sha256) else { return Ok(None) };
        match tokio::fs::read(&path).await {
            Ok(data) => Ok(Some(Bytes::from(data))),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err.into()),
        }
    }
}

/// Blobs in the `blobs (sha256, size, data)` table of a service's database.
#[derive(Debug, Clone)]
pub struct DbBlobStore {
    db: Db,
}

impl DbBlobStore {
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl BlobStore for DbBlobStore {
    async fn put(&self, data: Bytes) -> Result<String, BlobError> {
        let sha = sha256_hex(&data);
        let size = i64::try_from(data.len()).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            sqlx::query("INSERT INTO blobs (sha256, size, data) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING")
                .bind(&sha)
                .bind(size)
                .bind(data.as_ref())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?;
        Ok(sha)
    }

    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError> {
        let row: Option<(Vec<u8>,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT data FROM blobs WHERE sha256 = $1")
                .bind(sha256)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(data,)| Bytes::from(data)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fs_store_round_trips_and_dedupes() {
        let dir = std::env::temp_dir().join(format!("blobs-{}", uuid::Uuid::new_v4()));
        let store = FsBlobStore::new(&dir);
        let a = store.put(Bytes::from_static(b"hello")).await.unwrap();
        let b = store.put(Bytes::from_static(b"hello")).await.unwrap();
        assert_eq!(a, b);
        assert_eq!(a, sha256_hex(b"hello"));
        assert_eq!(store.get(&a).await.unwrap().unwrap(), Bytes::from_static(b"hello"));
        assert!(store.get(&"0".repeat(64)).await.unwrap().is_none());
        assert!(store.get("../../etc/passwd").await.unwrap().is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
