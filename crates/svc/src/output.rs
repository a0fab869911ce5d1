//! Human-readable or JSON-lines output, and the mapping of errors to exit codes.
//!
//! Everything a command prints to standard output goes through [`Output`]:
//! it writes through a locked, buffered handle, and a reader that goes away
//! early (`svc diff OLD NEW | head`) ends the output quietly instead of
//! panicking the way `println!` does on a closed pipe.

use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use hub_core::HubError;
use kernel::StoreError;
use platform::DbError;
use serde_json::Value;

pub struct Output {
    json: bool,
    /// Set once standard output is closed (or fails): later writes are
    /// skipped, the command itself carries on to its normal end.
    closed: AtomicBool,
    /// Set when writing failed for a reason other than a closed pipe.
    failed: AtomicBool,
}

impl Output {
    pub const fn new(json: bool) -> Self {
        Self { json, closed: AtomicBool::new(false), failed: AtomicBool::new(false) }
    }

    pub const fn is_json(&self) -> bool {
        self.json
    }

    /// Prints `text` for people, or `value` as one JSON line.
    pub fn emit(&self, text: &str, value: &Value) {
        if self.json {
            self.json_line(value);
        } else {
            self.line(text);
        }
    }

    /// Prints one line of text.
    pub fn line(&self, text: &str) {
        self.write_with(|w| writeln!(w, "{text}"));
    }

    /// Prints `value` as one JSON line.
    pub fn json_line(&self, value: &Value) {
        self.write_with(|w| {
            serde_json::to_writer(&mut *w, value).map_err(io::Error::from)?;
            w.write_all(b"\n")
        });
    }

    /// Streams output through a locked, buffered standard output. A closed
    /// pipe is the reader saying it has seen enough, a normal end; any other
    /// failure to write is reported once on standard error. Either way the
    /// rest of the output is dropped.
    pub fn write_with(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
        if self.closed.load(Ordering::Relaxed) {
            return;
        }
        let mut buffered = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
        let result = write(&mut buffered).and_then(|()| buffered.flush());
        if let Err(err) = result {
            self.closed.store(true, Ordering::Relaxed);
            if err.kind() != io::ErrorKind::BrokenPipe {
                self.failed.store(true, Ordering::Relaxed);
                self.error(&format!("cannot write to standard output: {err}"));
            }
        }
    }

    /// Whether some output was lost to a write error (a closed pipe does
    /// not count: the reader chose to stop).
    pub fn write_failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    pub fn error(&self, message: &str) {
        if self.json {
            eprintln!("{}", serde_json::json!({ "error": message }));
        } else {
            eprintln!("error: {message}");
        }
    }
}

/// 1 user error, 2 transient, 3 internal.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(courses) = cause.downcast_ref::<courses_core::CoursesError>() {
            return crate::courses::exit_code(courses);
        }
        if let Some(catalog) = cause.downcast_ref::<catalog_core::CatalogError>() {
            return crate::catalog::exit_code(catalog);
        }
        if let Some(failure) = cause.downcast_ref::<crate::push::Failure>() {
            return match failure {
                crate::push::Failure::User(_) => 1,
                crate::push::Failure::Transient(_) => 2,
            };
        }
        if let Some(hub) = cause.downcast_ref::<HubError>() {
            return match hub {
                HubError::Store(StoreError::Busy(_)) => 2,
                HubError::Store(_) | HubError::Blob(_) | HubError::Internal(_) => 3,
                _ => 1,
            };
        }
        if let Some(db) = cause.downcast_ref::<DbError>() {
            return match db {
                DbError::Connect { .. } => 2,
                DbError::DataDir { .. } => 1,
                DbError::Migrate(_) => 3,
            };
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return 1;
        }
    }
    3
}
