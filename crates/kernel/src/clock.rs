//! Instants and the clock that produces them.
//!
//! Every component that needs "now" receives a [`Clock`], so tests can move
//! time forward (preview expiry, token expiry) without sleeping.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, SecondsFormat, Utc};

/// Milliseconds since the Unix epoch, UTC. Stored as a plain integer in every
/// database so that SQLite and PostgreSQL compare and index it identically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub const fn from_millis(millis: i64) -> Self {
        Self(millis)
    }

    pub const fn as_millis(self) -> i64 {
        self.0
    }

    #[must_use]
    pub const fn plus_millis(self, millis: i64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    #[must_use]
    pub const fn plus_days(self, days: i64) -> Self {
        self.plus_millis(days.saturating_mul(86_400_000))
    }

    /// ISO 8601 in UTC with millisecond precision, e.g. `2026-11-22T07:05:02.123Z`.
    pub fn to_rfc3339(self) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.0).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// A source of the current instant.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp(Utc::now().timestamp_millis())
    }
}

/// A clock that only moves when told to; cloning shares the same instant.
#[derive(Clone, Debug)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn new(start: Timestamp) -> Self {
        Self(Arc::new(AtomicI64::new(start.as_millis())))
    }

    pub fn advance_millis(&self, millis: i64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }

    pub fn advance_days(&self, days: i64) {
        self.advance_millis(days.saturating_mul(86_400_000));
    }

    pub fn set(&self, at: Timestamp) {
        self.0.store(at.as_millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_with_milliseconds() {
        assert_eq!(Timestamp::from_millis(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(Timestamp::from_millis(1_795_000_000_123).to_rfc3339(), "2026-11-18T11:06:40.123Z");
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(Timestamp::from_millis(1_000));
        let shared = clock.clone();
        assert_eq!(clock.now().as_millis(), 1_000);
        shared.advance_days(14);
        assert_eq!(clock.now().as_millis(), 1_000 + 14 * 86_400_000);
    }
}
