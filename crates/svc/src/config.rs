//! Opening the stores the configuration names.

use std::sync::Arc;

use anyhow::Context as _;
use hub_core::Hub;
use kernel::SystemClock;

use crate::cli::StoreArgs;

pub async fn open_hub(store: &StoreArgs) -> anyhow::Result<Hub> {
    let hub = Hub::open(store.hub_database_url.as_deref(), &store.data_dir, Arc::new(SystemClock))
        .await
        .context("could not open the hub's store")?;
    Ok(match blob_store(store, "hub", hub.db())? {
        Some(blobs) => hub.with_blobs(blobs),
        None => hub,
    })
}

/// The blob store `SVC_BLOB_URL` names for `service`, when it is set.
pub fn blob_store(
    store: &StoreArgs,
    service: &str,
    db: &platform::Db,
) -> anyhow::Result<Option<Arc<dyn platform::blobs::BlobStore>>> {
    let Some(url) = store.blob_url.as_deref().filter(|url| !url.trim().is_empty()) else { return Ok(None) };
    let blobs = platform::blobs::store_for_url(url, service, db).context("SVC_BLOB_URL")?;
    Ok(Some(blobs))
}
