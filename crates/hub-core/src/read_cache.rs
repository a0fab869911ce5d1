//! A cache of authenticated project reads for the embedded SQLite store.
//!
//! The hottest request, reading a project with a token, costs one query; on
//! SQLite that trip through the connection pool dominates the request. This
//! cache keeps the answer of that query (caller, token expiry, project and
//! access) and reuses it only while the database is provably unchanged: each
//! entry carries the header of SQLite's WAL index (the `-shm` file), which
//! every committing connection of every process rewrites (its frame count,
//! checksums and salts change with each commit and checkpoint). Reading those
//! 96 bytes is one small file read, so a revocation by `svc hub token revoke`
//! in another process, or any write by this one, is seen by the very next
//! request. PostgreSQL deployments (several nodes) do not use it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use kernel::Timestamp;

use crate::model::{Principal, ProjectAccess};

/// Both copies of the WAL-index header.
const HEADER_BYTES: usize = 96;
/// Entries kept before the cache starts over (a bound on memory).
const MAX_ENTRIES: usize = 10_000;

pub type Stamp = [u8; HEADER_BYTES];

/// What the hot query returned.
#[derive(Clone, Debug)]
pub struct CallerProject {
    pub principal: Principal,
    pub expires_at: Option<Timestamp>,
    pub last_used_at: Option<Timestamp>,
    pub access: ProjectAccess,
}

#[derive(Debug)]
pub struct ReadCache {
    shm_path: PathBuf,
    entries: Mutex<HashMap<(String, String), (Stamp, CallerProject)>>,
}

impl ReadCache {
    /// A cache for the SQLite database file at `db_path`.
    pub fn for_sqlite(db_path: &Path) -> Self {
        let mut shm = db_path.as_os_str().to_owned();
        shm.push("-shm");
        Self { shm_path: PathBuf::from(shm), entries: Mutex::new(HashMap::new()) }
    }

    /// The current WAL-index header, or `None` when it cannot be read (then
    /// nothing is cached or served from the cache).
    pub fn stamp(&self) -> Option<Stamp> {
        read_header(&self.shm_path)
    }

    /// The cached answer for (token, slug) if the database has not changed
    /// since it was stored.
    pub fn get(&self, token_hash: &str, slug: &str, stamp: &Stamp) -> Option<CallerProject> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(&(token_hash.to_owned(), slug.to_owned()))
            .filter(|(stored, _)| stored == stamp)
            .map(|(_, value)| value.clone())
    }

    /// Stores an answer read after `stamp` was taken: if anything committed
    /// in between, the stamp is already old and the entry is never served.
    pub fn put(&self, token_hash: &str, slug: &str, stamp: Stamp, value: CallerProject) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert((token_hash.to_owned(), slug.to_owned()), (stamp, value));
        }
    }
}

#[cfg(unix)]
fn read_header(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::FileExt as _;
    // Opened on each read: if every connection closed, SQLite may recreate
    // the file, and a kept handle would then watch a stale inode.
    let file = std::fs::File::open(path).ok()?;
    let mut header = [0_u8; HEADER_BYTES];
    file.read_exact_at(&mut header, 0).ok()?;
    Some(header)
}

#[cfg(not(unix))]
fn read_header(_: &Path) -> Option<Stamp> {
    None
}
