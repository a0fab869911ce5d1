//! Request rate limiting and the `market` parameter: two rules every
//! authenticated Web API call passes through.
//!
//! The rate limit counts calls per app (OAuth client), as Spotify does, in a
//! window that starts with the app's first call and lasts
//! [`RateLimit::window_secs`]; once the window's budget is spent, calls are
//! refused until it ends, with the wait in whole seconds (rounded up, at
//! least 1) for `Retry-After`.
//!
//! With a shared [`Limiter`] (Redis, or PostgreSQL when nodes share it) the
//! window is kept in the store, so every node counts against one budget;
//! while the store does not answer, each node counts in its own memory
//! (fail open to a local limit, see `platform::limiter`).

use std::collections::HashMap;
use std::sync::Mutex;

use kernel::Timestamp;
use platform::limiter::{Algorithm, Limiter, Quota, Verdict};

use crate::error::{CatalogError, CatalogResult};

/// The catalog's default: 600 calls per app per 30 seconds.
pub const DEFAULT_REQUESTS: u32 = 600;
/// Spotify's rolling window is 30 seconds.
pub const WINDOW_SECS: u64 = 30;
/// Above this many tracked apps, ended windows are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// `requests` per `window_secs` per app; `requests == 0` disables the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: u32,
    pub window_secs: u64,
}

impl Default for RateLimit {
    fn default() -> Self {
        Self { requests: DEFAULT_REQUESTS, window_secs: WINDOW_SECS }
    }
}

impl RateLimit {
    pub const fn unlimited() -> Self {
        Self { requests: 0, window_secs: WINDOW_SECS }
    }
}

/// How much of its budget a key has spent in its current window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateUsage {
    /// Calls counted in the window (0 when no window is open).
    pub used: u32,
    /// The budget per window; 0 when the limit is off.
    pub limit: u32,
    pub window_secs: u64,
    /// Whole seconds until the window ends (rounded up); 0 when none is open.
    pub resets_in_secs: u64,
}

/// The limit's name in a shared store.
const SHARED_NAME: &str = "app";

/// Fixed windows per key, started by the key's first call.
#[derive(Debug)]
pub struct RateLimiter {
    limit: RateLimit,
    windows: Mutex<HashMap<String, (i64, u32)>>,
    shared: Limiter,
}

impl RateLimiter {
    pub fn new(limit: RateLimit) -> Self {
        Self { limit, windows: Mutex::new(HashMap::new()), shared: Limiter::memory() }
    }

    /// The same limit counted through `limiter` (across nodes when shared).
    #[must_use]
    pub fn with_limiter(mut self, limiter: Limiter) -> Self {
        self.shared = limiter;
        self
    }

    pub const fn limit(&self) -> RateLimit {
        self.limit
    }

    fn quota(&self) -> Quota {
        Quota {
            limit: self.limit.requests,
            period_ms: self.limit.window_secs.saturating_mul(1000).max(1),
            algorithm: Algorithm::FixedWindow,
        }
    }

    /// What `key` has spent of its budget at `now`, without counting a call:
    /// in the shared store when it answers, else in this node's memory.
    pub async fn usage(&self, key: &str, now: Timestamp) -> RateUsage {
        if self.shared.is_shared()
            && let Ok(state) = self.shared.window_usage(SHARED_NAME, key, self.quota(), now.as_millis()).await
        {
            let used = if state.left_ms == 0 { 0 } else { state.used };
            return RateUsage {
                used,
                limit: self.limit.requests,
                window_secs: self.limit.window_secs,
                resets_in_secs: state.left_ms.div_ceil(1000),
            };
        }
        self.usage_local(key, now)
    }

    /// [`Self::usage`] in this node's memory.
    pub fn usage_local(&self, key: &str, now: Timestamp) -> RateUsage {
        let window_ms = i64::try_from(self.limit.window_secs.saturating_mul(1000)).unwrap_or(i64::MAX).max(1);
        let now = now.as_millis();
        let windows = self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let open = windows.get(key).filter(|(start, _)| now >= *start && now.saturating_sub(*start) < window_ms);
        let (used, resets_in_secs) = open.map_or((0, 0), |(start, used)| {
            let left = start.saturating_add(window_ms).saturating_sub(now).max(1);
            (*used, u64::try_from(left).unwrap_or(1).div_ceil(1000))
        });
        RateUsage { used, limit: self.limit.requests, window_secs: self.limit.window_secs, resets_in_secs }
    }

    /// Counts one call of `key` at `now`; `RateLimited` when over budget.
    pub async fn check(&self, key: &str, now: Timestamp) -> CatalogResult<()> {
        if self.limit.requests == 0 {
            return Ok(());
        }
        if self.shared.is_shared() {
            match self.shared.hit(SHARED_NAME, key, self.quota(), now.as_millis()).await {
                Ok(Verdict::Allowed) => return Ok(()),
                Ok(Verdict::Refused(wait)) => {
                    let secs = u64::try_from(wait.as_millis().div_ceil(1000)).unwrap_or(u64::MAX).max(1);
                    return Err(CatalogError::RateLimited { retry_after_secs: secs });
                }
                Err(_) => {}
            }
        }
        self.check_local(key, now)
    }

    /// [`Self::check`] in this node's memory.
    pub fn check_local(&self, key: &str, now: Timestamp) -> CatalogResult<()> {
        if self.limit.requests == 0 {
            return Ok(());
        }
        let window_ms = i64::try_from(self.limit.window_secs.saturating_mul(1000)).unwrap_or(i64::MAX).max(1);
        let now = now.as_millis();
        let mut windows = self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if windows.len() > PRUNE_ABOVE {
            windows.retain(|_, (start, _)| now.saturating_sub(*start) < window_ms);
        }
        let entry = windows.entry(key.to_owned()).or_insert((now, 0));
        if now.saturating_sub(entry.0) >= window_ms || now < entry.0 {
            *entry = (now, 0);
        }
        if entry.1 >= self.limit.requests {
            let wait_ms = entry.0.saturating_add(window_ms).saturating_sub(now).max(1);
            let secs = u64::try_from(wait_ms).unwrap_or(1).div_ceil(1000);
            return Err(CatalogError::RateLimited { retry_after_secs: secs.max(1) });
        }
        entry.1 += 1;
        Ok(())
    }
}

/// What a `market` (or `country`) parameter asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarketParam {
    /// An ISO 3166-1 alpha-2 code, upper case.
    Code(String),
    /// `from_token`: the market of the user the token belongs to.
    FromToken,
}

/// Parses `market`: two ASCII letters (any case) or `from_token`.
pub fn parse_market(raw: &str) -> CatalogResult<MarketParam> {
    let raw = raw.trim();
    if raw == "from_token" {
        return Ok(MarketParam::FromToken);
    }
    if raw.len() == 2 && raw.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Ok(MarketParam::Code(raw.to_ascii_uppercase()));
    }
    Err(CatalogError::invalid("Invalid market code"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_millis(T0.as_millis() + ms)
    }

    #[test]
    fn budget_per_key_then_whole_seconds_until_the_window_ends() {
        let limiter = RateLimiter::new(RateLimit { requests: 3, window_secs: 30 });
        for i in 0..3 {
            limiter.check_local("app", at(i * 100)).unwrap();
        }
        // Another app has its own budget.
        limiter.check_local("other", at(300)).unwrap();
        match limiter.check_local("app", at(1_500)) {
            Err(CatalogError::RateLimited { retry_after_secs }) => assert_eq!(retry_after_secs, 29),
            other => panic!("expected a rate limit, got {other:?}"),
        }
        // 200 ms before the end still asks for a whole second.
        match limiter.check_local("app", at(29_800)) {
            Err(CatalogError::RateLimited { retry_after_secs }) => assert_eq!(retry_after_secs, 1),
            other => panic!("expected a rate limit, got {other:?}"),
        }
        // A new window starts when the old one ends.
        limiter.check_local("app", at(30_000)).unwrap();
    }

    #[test]
    fn usage_reads_the_open_window_without_counting() {
        let limiter = RateLimiter::new(RateLimit { requests: 5, window_secs: 30 });
        let none = limiter.usage_local("app", at(0));
        assert_eq!(none, RateUsage { used: 0, limit: 5, window_secs: 30, resets_in_secs: 0 });
        limiter.check_local("app", at(1_000)).unwrap();
        limiter.check_local("app", at(2_000)).unwrap();
        let open = limiter.usage_local("app", at(11_500));
        assert_eq!(open, RateUsage { used: 2, limit: 5, window_secs: 30, resets_in_secs: 20 });
        // Reading twice counts nothing.
        assert_eq!(limiter.usage_local("app", at(11_500)).used, 2);
        // Another key's window is its own.
        assert_eq!(limiter.usage_local("other", at(11_500)).used, 0);
        // Once the window ends nothing is spent.
        assert_eq!(
            limiter.usage_local("app", at(31_000)),
            RateUsage { used: 0, limit: 5, window_secs: 30, resets_in_secs: 0 }
        );
    }

    #[test]
    fn zero_disables_the_limit() {
        let limiter = RateLimiter::new(RateLimit::unlimited());
        for i in 0..10_000 {
            limiter.check_local("app", at(i)).unwrap();
        }
    }

    #[test]
    fn markets_are_two_letters_or_from_token() {
        assert_eq!(parse_market("se").unwrap(), MarketParam::Code("SE".to_owned()));
        assert_eq!(parse_market("US").unwrap(), MarketParam::Code("US".to_owned()));
        assert_eq!(parse_market("from_token").unwrap(), MarketParam::FromToken);
        for bad in ["", "USA", "1A", "from-token", "ü"] {
            assert!(matches!(parse_market(bad), Err(CatalogError::Invalid(_))), "{bad}");
        }
    }
}
