//! Library administration for operators: start a scan of a folder on the
//! server and follow its progress and per-file problems, and see the
//! listeners with the apps they made. Operators are listeners marked so
//! (the first start's demo listener, or `svc catalog user create
//! --operator`); to anyone else these use cases answer "not found", as if
//! they did not exist.
//!
//! A scan started here runs in the background on the node that received
//! the request; its progress is kept in that node's memory (the last run
//! only), so behind a load balancer the page polls the node it started on
//! only by chance. One scan at a time per node.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use kernel::Timestamp;

use crate::Catalog;
use crate::apps::DeveloperApp;
use crate::error::{CatalogError, CatalogResult};
use crate::model::User;
use crate::scan::ScanProgress;

/// At most this many listeners on the administration page.
pub const MAX_LISTED_USERS: i64 = 500;

/// The last scan started from the administration page.
#[derive(Clone, Debug)]
pub struct ScanRun {
    pub dir: String,
    pub started_at: Timestamp,
    pub finished: bool,
    pub progress: ScanProgress,
    /// Why the scan stopped early (an unreadable folder).
    pub error: Option<String>,
}

/// The shared slot of the last scan.
#[derive(Clone, Debug, Default)]
pub struct ScanSlot(Arc<Mutex<Option<ScanRun>>>);

impl ScanSlot {
    fn update(&self, change: impl FnOnce(&mut Option<ScanRun>)) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut slot);
    }

    fn get(&self) -> Option<ScanRun> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// A listener and the apps they made.
#[derive(Clone, Debug)]
pub struct ListenerAccount {
    pub user: User,
    pub operator: bool,
    pub apps: Vec<DeveloperApp>,
}

impl Catalog {
    /// Refuses anyone but an operator, as "not found".
    async fn require_operator(&self, user_id: &str) -> CatalogResult<()> {
        if self.store.is_operator(user_id).await? { Ok(()) } else { Err(CatalogError::NotFound("page")) }
    }

    /// Whether `user_id` administers the library.
    pub async fn is_operator(&self, user_id: &str) -> CatalogResult<bool> {
        Ok(self.store.is_operator(user_id).await?)
    }

    /// Makes the listener named `username` an operator.
    pub async fn make_operator(&self, username: &str) -> CatalogResult<()> {
        let user = self
            .store
            .user_by(crate::store::UserKey::Username, username.trim())
            .await?
            .ok_or(CatalogError::NotFound("user"))?;
        if self.store.set_operator(&user.id).await? { Ok(()) } else { Err(CatalogError::NotFound("user")) }
    }

    /// Starts scanning `dir` (a folder on the server) in the background;
    /// [`Self::scan_status`] follows it. 409 while another runs.
    pub async fn start_scan(&self, user_id: &str, dir: &str) -> CatalogResult<ScanRun> {
        self.require_operator(user_id).await?;
        let dir = dir.trim();
        if dir.is_empty() {
            return Err(CatalogError::invalid("name the folder to scan"));
        }
        let path = PathBuf::from(dir);
        if !path.is_absolute() || !path.is_dir() {
            return Err(CatalogError::invalid(format!(
                "{dir:?} is not a folder on the server (give an absolute path)"
            )));
        }
        let run = ScanRun {
            dir: dir.to_owned(),
            started_at: self.clock.now(),
            finished: false,
            progress: ScanProgress::default(),
            error: None,
        };
        let mut busy = false;
        self.scan_slot.update(|slot| {
            if slot.as_ref().is_some_and(|r| !r.finished) {
                busy = true;
            } else {
                *slot = Some(run.clone());
            }
        });
        if busy {
            return Err(CatalogError::Conflict("a scan is already running".to_owned()));
        }
        let catalog = self.clone();
        tokio::spawn(async move {
            let slot = catalog.scan_slot.clone();
            let result = catalog
                .scan(&path, |progress| {
                    slot.update(|run| {
                        if let Some(run) = run {
                            run.progress = progress.clone();
                        }
                    });
                })
                .await;
            slot.update(|run| {
                if let Some(run) = run {
                    run.finished = true;
                    match result {
                        Ok(done) => run.progress = done,
                        Err(e) => run.error = Some(e.to_string()),
                    }
                }
            });
        });
        Ok(run)
    }

    /// The last scan started on this node, if any.
    pub async fn scan_status(&self, user_id: &str) -> CatalogResult<Option<ScanRun>> {
        self.require_operator(user_id).await?;
        Ok(self.scan_slot.get())
    }

    /// The listeners (by name, at most [`MAX_LISTED_USERS`]) with their apps.
    pub async fn listener_accounts(&self, user_id: &str) -> CatalogResult<Vec<ListenerAccount>> {
        self.require_operator(user_id).await?;
        let mut accounts = Vec::new();
        for row in self.store.users_by_name(MAX_LISTED_USERS).await? {
            let user = row.into_user();
            let operator = self.store.is_operator(&user.id).await?;
            let apps = self.developer_apps(&user.id).await?;
            accounts.push(ListenerAccount { user, operator, apps });
        }
        Ok(accounts)
    }
}
