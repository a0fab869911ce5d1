//! The SQL of uploaded media.

use kernel::{StoreError, Timestamp};
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::media::{Media, MediaKind};

#[derive(sqlx::FromRow)]
struct MediaRow {
    id: String,
    workspace_id: String,
    sha256: String,
    kind: String,
    content_type: String,
    name: String,
    size: i64,
    created_at: i64,
}

impl From<MediaRow> for Media {
    fn from(r: MediaRow) -> Self {
        Self {
            id: r.id,
            workspace_id: r.workspace_id,
            sha256: r.sha256,
            kind: MediaKind::parse(&r.kind).unwrap_or(MediaKind::Image),
            content_type: r.content_type,
            name: r.name,
            size: u64::try_from(r.size).unwrap_or_default(),
            created_at: Timestamp::from_millis(r.created_at),
        }
    }
}

impl Store {
    pub async fn insert_media(&self, media: &Media) -> Result<(), StoreError> {
        let size = i64::try_from(media.size).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO media (id, workspace_id, sha256, kind, content_type, name, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
                .bind(&media.id)
                .bind(&media.workspace_id)
                .bind(&media.sha256)
                .bind(media.kind.as_str())
                .bind(&media.content_type)
                .bind(&media.name)
                .bind(size)
                .bind(media.created_at.as_millis())
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })
    }

    /// A workspace's media, newest first (at most `limit`).
    pub async fn media_of(&self, workspace_id: &str, limit: i64) -> Result<Vec<Media>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MediaRow>(
                "SELECT id, workspace_id, sha256, kind, content_type, name, size, created_at FROM media WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
            )
            .bind(workspace_id)
            .bind(limit)
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(Media::from).collect())
            .map_err(store_error)
        })
    }

    /// One media file by its id, in any workspace (the public route's read).
    pub async fn media_by_id(&self, id: &str) -> Result<Option<Media>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MediaRow>(
                "SELECT id, workspace_id, sha256, kind, content_type, name, size, created_at FROM media WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await
            .map(|row| row.map(Media::from))
            .map_err(store_error)
        })
    }
}
