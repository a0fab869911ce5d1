//! Library administration for operators: start a scan of a folder on the
//! server and follow its progress and per-file problems, and see the
//! listeners with the apps they made. Operators are listeners marked so
//! (the first start's demo listener, or `svc catalog user create
//! --operator`); to anyone else these use cases answer "not found", as if
//! they did not exist.
//!
//! A scan started here runs in the background on the node that received
//! the request, and on that node only: the node first claims the one scan
//! lease in the store (a single row, claimed in one statement), so two
//! nodes sharing PostgreSQL never scan at once. While it scans the node
//! writes the progress to that row and renews the lease every
//! [`SCAN_SAVE_EVERY`]; every node's page reads the progress from there. A
//! node that stops mid-scan leaves a lease that lapses after
//! [`SCAN_LEASE`], and the scan is then reported as stopped and another
//! may start.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use kernel::Timestamp;

use crate::Catalog;
use crate::apps::DeveloperApp;
use crate::error::{CatalogError, CatalogResult};
use crate::model::User;
use crate::scan::ScanProgress;
use crate::store::ScanRunRow;

/// How long a scan's lease lasts without renewal.
pub const SCAN_LEASE: Duration = Duration::from_secs(60);
/// How often the scanning node saves its progress and renews its lease.
pub const SCAN_SAVE_EVERY: Duration = Duration::from_millis(250);

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
    /// Disabled by an operator: cannot sign in, their apps get no tokens.
    pub disabled: bool,
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
        let now = self.clock.now();
        let run = ScanRun {
            dir: dir.to_owned(),
            started_at: now,
            finished: false,
            progress: ScanProgress::default(),
            error: None,
        };
        if !self.store.claim_scan(&self.scan_row(&run), now).await? {
            return Err(CatalogError::Conflict("a scan is already running".to_owned()));
        }
        self.scan_slot.update(|slot| *slot = Some(run.clone()));
        // Saves the progress and renews the lease until the scan has
        // finished; the last save is the finished state, as this task alone
        // writes the row and `finished` never goes back.
        let saver = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SCAN_SAVE_EVERY).await;
                let Some(run) = saver.scan_slot.get() else { break };
                if let Err(e) = saver.store.save_scan(&saver.scan_row(&run)).await {
                    tracing::warn!(error = %e, "could not save the scan's progress");
                }
                if run.finished {
                    break;
                }
            }
        });
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

    /// The store's row for `run` on this node, its lease renewed from now.
    fn scan_row(&self, run: &ScanRun) -> ScanRunRow {
        let lease_ms = i64::try_from(SCAN_LEASE.as_millis()).unwrap_or(i64::MAX);
        ScanRunRow {
            node: self.node_id.to_string(),
            dir: run.dir.clone(),
            started_at: run.started_at.as_millis(),
            lease_until: self.clock.now().as_millis().saturating_add(lease_ms),
            finished: run.finished,
            error: run.error.clone(),
            progress: serde_json::to_string(&run.progress).unwrap_or_else(|_| "{}".to_owned()),
        }
    }

    /// The last scan started from the administration page on any node;
    /// one whose node stopped renewing its lease is reported as stopped.
    pub async fn scan_status(&self, user_id: &str) -> CatalogResult<Option<ScanRun>> {
        self.require_operator(user_id).await?;
        let Some(row) = self.store.scan_run().await? else { return Ok(None) };
        let lapsed = !row.finished && row.lease_until < self.clock.now().as_millis();
        Ok(Some(ScanRun {
            dir: row.dir,
            started_at: Timestamp::from_millis(row.started_at),
            finished: row.finished || lapsed,
            progress: serde_json::from_str(&row.progress).unwrap_or_default(),
            error: if lapsed {
                Some("the node running this scan stopped before it finished".to_owned())
            } else {
                row.error
            },
        }))
    }

    /// The listeners (by name, at most [`MAX_LISTED_USERS`]) with their apps.
    pub async fn listener_accounts(&self, user_id: &str) -> CatalogResult<Vec<ListenerAccount>> {
        self.require_operator(user_id).await?;
        let mut accounts = Vec::new();
        for row in self.store.users_by_name(MAX_LISTED_USERS).await? {
            let disabled = row.disabled;
            let user = row.into_user();
            let operator = self.store.is_operator(&user.id).await?;
            let apps = self.developer_apps(&user.id).await?;
            accounts.push(ListenerAccount { user, operator, disabled, apps });
        }
        Ok(accounts)
    }

    /// Creates a listener (an operator when `operator`) with a generated
    /// password, returned once.
    pub async fn create_listener(
        &self,
        user_id: &str,
        username: &str,
        operator: bool,
    ) -> CatalogResult<(User, kernel::Secret<String>)> {
        self.require_operator(user_id).await?;
        let (user, password) = self.create_user(username, None).await?;
        if operator {
            self.store.set_operator(&user.id).await?;
        }
        Ok((user, password))
    }

    /// Disables (no sign-in; every token of theirs and of their apps
    /// revoked, their apps unknown to the token endpoint) or enables a
    /// listener. An operator cannot disable themselves.
    pub async fn set_listener_disabled(&self, user_id: &str, listener_id: &str, disabled: bool) -> CatalogResult<()> {
        self.require_operator(user_id).await?;
        if disabled && listener_id == user_id {
            return Err(CatalogError::invalid("you cannot disable your own account"));
        }
        if self.store.set_user_disabled(listener_id, disabled).await? {
            Ok(())
        } else {
            Err(CatalogError::NotFound("user"))
        }
    }

    /// Deletes a listener with everything that is theirs. An operator
    /// cannot delete themselves.
    pub async fn delete_listener(&self, user_id: &str, listener_id: &str) -> CatalogResult<()> {
        self.require_operator(user_id).await?;
        if listener_id == user_id {
            return Err(CatalogError::invalid("you cannot delete your own account"));
        }
        if self.store.delete_user(listener_id).await? { Ok(()) } else { Err(CatalogError::NotFound("user")) }
    }
}
