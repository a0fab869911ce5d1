//! The error every store returns, independent of the database behind it.

/// A failure of a store operation, classified so that domain code can react to
/// constraint violations without knowing which database raised them.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique or exclusion constraint refused the write; carries the
    /// constraint or index name when the database reports one.
    #[error("unique constraint violated: {0}")]
    Conflict(String),
    /// Another transaction held a lock long enough that this one gave up.
    #[error("database busy: {0}")]
    Busy(String),
    /// Anything else: connection loss, bad SQL, corrupt data.
    #[error("database error: {0}")]
    Backend(String),
}
