//! Where the hub keeps its spec documents, and the collector of documents
//! no version refers to any more.
//!
//! The collector is safe across nodes: a blob seen unreferenced is noted
//! with the time (`blob_gc`), and deleted only after a grace period, by a
//! transaction that holds its note and finds no version referring to it.
//! A push writes its version in a transaction that deletes the note first,
//! so it waits for a deletion in progress, and stores the document again
//! when it finds it gone (see `Store::delete_unreferenced_blob`).

use std::sync::Arc;

use platform::blobs::BlobStore;

use crate::Hub;
use crate::error::{HubError, HubResult};

/// How long a blob stays unreferenced before it is deleted.
pub const GRACE_MS: i64 = 24 * 3600 * 1000;

/// What one collection did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlobCollection {
    /// Blobs in the store.
    pub stored: usize,
    /// Of those, referenced by no version.
    pub unreferenced: usize,
    /// Deleted (unreferenced for longer than the grace period).
    pub deleted: usize,
}

impl Hub {
    /// The same hub keeping its documents in `blobs` (`SVC_BLOB_URL`).
    #[must_use]
    pub fn with_blobs(mut self, blobs: Arc<dyn BlobStore>) -> Self {
        self.blobs = blobs;
        self
    }

    /// Where the documents are.
    pub fn blobs(&self) -> &Arc<dyn BlobStore> {
        &self.blobs
    }

    /// Notes blobs no version refers to and deletes those unreferenced for
    /// longer than `grace_ms` (a periodic job, once across nodes).
    pub async fn collect_blob_garbage(&self, grace_ms: i64) -> HubResult<BlobCollection> {
        let now = self.clock.now().as_millis();
        // References first: a blob stored after this read is noted at
        // worst, never deleted before its grace period ends.
        let referenced = self.store.referenced_blobs().await?;
        let stored = self.blobs.list().await?;
        let unreferenced: Vec<String> = stored.iter().filter(|sha| !referenced.contains(*sha)).cloned().collect();
        self.store.note_unreferenced_blobs(&unreferenced, now).await?;
        let before = now.saturating_sub(grace_ms);
        let mut deleted = 0;
        for sha in self.store.blobs_due_for_deletion(before).await? {
            let blobs = self.blobs.clone();
            let name = sha.clone();
            let delete = async move { blobs.delete(&name).await.map_err(HubError::from) };
            if self.store.delete_unreferenced_blob(&sha, before, delete).await? {
                deleted += 1;
            }
        }
        Ok(BlobCollection { stored: stored.len(), unreferenced: unreferenced.len(), deleted })
    }
}
