//! Opening the stores the configuration names.

use std::sync::Arc;

use anyhow::Context as _;
use hub_core::Hub;
use kernel::SystemClock;

use crate::cli::StoreArgs;

pub async fn open_hub(store: &StoreArgs) -> anyhow::Result<Hub> {
    Hub::open(store.hub_database_url.as_deref(), &store.data_dir, Arc::new(SystemClock))
        .await
        .context("could not open the hub's store")
}
