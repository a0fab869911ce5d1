//! Keyed rate limits that stay small: attempts per key per minute with a
//! `Retry-After`, and a map pruned of idle keys so a stream of new keys
//! (addresses, names) cannot grow memory without bound.
//!
//! In memory the limiter is governor's GCRA; with a shared
//! [`Limiter`] (Redis or PostgreSQL, see [`crate::limiter`]) the same
//! algorithm runs in the store so every node counts against one budget, and
//! the memory limiter is the fallback while the store does not answer. This
//! adds the pruning schedule and the wait in whole seconds every caller
//! answers with.

use std::fmt::Display;
use std::hash::Hash;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};

use governor::clock::Clock as _;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::limiter::{Limiter, Verdict};

/// What a throttle counts under. Client addresses are normalised by
/// [`crate::net::rate_key`] (an IPv6 client by its /64) here, once, so no
/// limit keyed by an address can forget it.
pub trait ThrottleKey: Hash + Eq + Clone + Display {
    #[must_use]
    fn rate_key(&self) -> Self {
        self.clone()
    }
}

impl ThrottleKey for String {}
impl ThrottleKey for &str {}
impl ThrottleKey for u64 {}
impl ThrottleKey for i32 {}

impl ThrottleKey for std::net::IpAddr {
    fn rate_key(&self) -> Self {
        crate::net::rate_key(*self)
    }
}

/// Prune idle keys after this many checks.
const PRUNE_EVERY: u64 = 4096;

/// A per-minute limit per key.
pub struct Throttle<K: ThrottleKey> {
    limiter: DefaultKeyedRateLimiter<K>,
    per_minute: u32,
    checks: AtomicU64,
    /// The shared store and this limit's name in it; `None` counts only in
    /// memory.
    shared: Option<(Limiter, String)>,
}

impl<K: ThrottleKey> std::fmt::Debug for Throttle<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Throttle").field("per_minute", &self.per_minute).finish_non_exhaustive()
    }
}

/// A refused attempt: try again after this many whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryAfter {
    pub secs: u64,
    /// The limit that was reached, per minute.
    pub per_minute: u32,
}

impl<K: ThrottleKey> Throttle<K> {
    /// `per_minute` attempts per key per minute, with a burst of as many.
    /// Zero means unlimited.
    #[must_use]
    pub fn per_minute(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MAX));
        Self { limiter: RateLimiter::keyed(quota), per_minute, checks: AtomicU64::new(0), shared: None }
    }

    /// The same limit counted through `limiter` under `name` (unique per
    /// limit of a service): across every node when the limiter is shared.
    #[must_use]
    pub fn shared(limiter: &Limiter, name: &str, per_minute: u32) -> Self {
        let mut throttle = Self::per_minute(per_minute);
        if limiter.is_shared() {
            throttle.shared = Some((limiter.clone(), name.to_owned()));
        }
        throttle
    }

    /// Counts one attempt for `key`: in the shared store when there is one
    /// and it answers, else in this node's memory (fail open to a local
    /// limit; see [`crate::limiter`]).
    pub async fn check(&self, key: &K) -> Result<(), RetryAfter> {
        if self.per_minute == 0 {
            return Ok(());
        }
        if let Some((limiter, name)) = &self.shared {
            let quota = crate::limiter::Quota::per_minute(self.per_minute);
            let now_ms = kernel::Clock::now(&kernel::SystemClock).as_millis();
            match limiter.hit(name, &key.rate_key().to_string(), quota, now_ms).await {
                Ok(Verdict::Allowed) => return Ok(()),
                Ok(Verdict::Refused(wait)) => {
                    let secs = u64::try_from(wait.as_millis().div_ceil(1000)).unwrap_or(u64::MAX).max(1);
                    return Err(RetryAfter { secs, per_minute: self.per_minute });
                }
                Err(_) => {}
            }
        }
        self.check_local(key)
    }

    /// The limit per minute (0: unlimited).
    #[must_use]
    pub const fn limit_per_minute(&self) -> u32 {
        self.per_minute
    }

    /// Counts one attempt for `key` in this node's memory.
    pub fn check_local(&self, key: &K) -> Result<(), RetryAfter> {
        if self.per_minute == 0 {
            return Ok(());
        }
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune();
        }
        self.limiter.check_key(&key.rate_key()).map_err(|not_until| RetryAfter {
            secs: not_until.wait_time_from(self.limiter.clock().now()).as_secs().max(1),
            per_minute: self.per_minute,
        })
    }

    /// Drops the keys whose limit has fully recovered.
    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    /// Keys currently tracked.
    #[must_use]
    pub fn len(&self) -> usize {
        self.limiter.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.limiter.is_empty()
    }
}

/// The throttles in front of every password check: per client address and
/// per account name, so neither a single address guessing many accounts nor
/// many addresses guessing one account get far.
#[derive(Debug)]
pub struct SignInThrottle {
    by_ip: Throttle<std::net::IpAddr>,
    by_account: Throttle<String>,
}

/// Password attempts per client address per minute.
pub const SIGNIN_PER_IP_PER_MINUTE: u32 = 20;
/// Password attempts per account (or project, for a docs password) per minute.
pub const SIGNIN_PER_ACCOUNT_PER_MINUTE: u32 = 10;

impl Default for SignInThrottle {
    fn default() -> Self {
        Self::new(SIGNIN_PER_IP_PER_MINUTE, SIGNIN_PER_ACCOUNT_PER_MINUTE)
    }
}

impl SignInThrottle {
    #[must_use]
    pub fn new(per_ip: u32, per_account: u32) -> Self {
        Self { by_ip: Throttle::per_minute(per_ip), by_account: Throttle::per_minute(per_account) }
    }

    /// The default limits counted through `limiter` under `name` (one name
    /// per sign-in form of a service).
    #[must_use]
    pub fn shared(limiter: &Limiter, name: &str) -> Self {
        Self::shared_with(limiter, name, SIGNIN_PER_IP_PER_MINUTE, SIGNIN_PER_ACCOUNT_PER_MINUTE)
    }

    /// [`Self::new`]'s limits counted through `limiter`.
    #[must_use]
    pub fn shared_with(limiter: &Limiter, name: &str, per_ip: u32, per_account: u32) -> Self {
        Self {
            by_ip: Throttle::shared(limiter, &format!("{name}.ip"), per_ip),
            by_account: Throttle::shared(limiter, &format!("{name}.account"), per_account),
        }
    }

    /// Counts one password attempt from `ip` (when known) against `account`
    /// (lowercased, so case variants share a budget).
    pub async fn check(&self, ip: Option<std::net::IpAddr>, account: &str) -> Result<(), RetryAfter> {
        if let Some(ip) = ip {
            self.by_ip.check(&ip).await?;
        }
        self.by_account.check(&account.to_lowercase()).await
    }

    pub fn prune(&self) {
        self.by_ip.prune();
        self.by_account.prune();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_key_is_refused_past_its_limit_with_a_wait() {
        let throttle = Throttle::per_minute(3);
        for _ in 0..3 {
            throttle.check(&"a").await.unwrap();
        }
        let refused = throttle.check(&"a").await.unwrap_err();
        assert!((1..=20).contains(&refused.secs), "{refused:?}");
        assert_eq!(refused.per_minute, 3);
        throttle.check(&"b").await.unwrap();
    }

    #[tokio::test]
    async fn an_ipv6_client_has_one_budget_for_its_whole_64() {
        let throttle = Throttle::per_minute(2);
        let ip = |text: &str| text.parse::<std::net::IpAddr>().unwrap();
        throttle.check(&ip("2001:db8:7:7::1")).await.unwrap();
        throttle.check(&ip("2001:db8:7:7::2")).await.unwrap();
        assert!(throttle.check(&ip("2001:db8:7:7:abcd::3")).await.is_err(), "a new address in the same /64");
        throttle.check(&ip("2001:db8:7:8::1")).await.unwrap();
        let signin = SignInThrottle::new(1, 100);
        signin.check(Some(ip("2001:db8:9:9::1")), "a").await.unwrap();
        assert!(signin.check(Some(ip("2001:db8:9:9::2")), "b").await.is_err());
    }

    #[tokio::test]
    async fn zero_is_unlimited_and_tracks_nothing() {
        let throttle = Throttle::per_minute(0);
        for i in 0..100 {
            throttle.check(&i).await.unwrap();
        }
        assert!(throttle.is_empty());
    }

    #[tokio::test]
    async fn sign_in_limits_per_account_across_addresses_and_case() {
        let throttle = SignInThrottle::new(100, 2);
        throttle.check(Some([192, 0, 2, 1].into()), "Ann@Example.com").await.unwrap();
        throttle.check(Some([192, 0, 2, 2].into()), "ann@example.com").await.unwrap();
        assert!(throttle.check(Some([192, 0, 2, 3].into()), "ANN@example.com").await.is_err());
        let per_ip = SignInThrottle::new(1, 100);
        per_ip.check(Some([192, 0, 2, 1].into()), "a").await.unwrap();
        assert!(per_ip.check(Some([192, 0, 2, 1].into()), "b").await.is_err());
    }
}
