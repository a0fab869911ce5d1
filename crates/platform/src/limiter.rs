//! The one limiter every rate limit of the three services counts through,
//! with three engines behind it:
//!
//! - **memory** (one node): each [`crate::throttle::Throttle`] keeps its own
//!   keyed GCRA (governor) and each window limit its own map;
//! - **PostgreSQL** (nodes sharing a database, no `SVC_REDIS_URL`): one
//!   unlogged table and one PL/pgSQL function, so a check is one round trip
//!   that locks one row;
//! - **Redis** (`SVC_REDIS_URL`): one Lua script, atomic on the server.
//!
//! Both shared engines run the same two algorithms, written once in SQL and
//! once in Lua because each must run inside its store to be atomic: GCRA
//! (the generic cell rate algorithm governor runs in memory: a burst of the
//! whole limit, then one more every period / limit), and a fixed window
//! started by a key's first call (the catalog's per-app limit).
//!
//! A node caches two things so the hot path does not pay a round trip per
//! request: a refusal (until the wait the store named), and, for GCRA limits
//! with room to spare, a short lease of a few calls taken in one trip
//! (a sixteenth of what is left, at most [`MAX_LEASE`], kept for
//! [`LEASE_TTL`]; what is left of an expired lease is handed back with the
//! key's next trip). With 16 leased at most and a sixteenth of the room, the
//! calls a node holds but does not use stay a small share of the limit.
//!
//! When the shared store does not answer (Redis restarting, the network
//! gone), checks fail open to the node's own memory limit: each node then
//! enforces the whole limit by itself, so N nodes allow up to N times it for
//! as long as the outage lasts. A failed store is not asked again for
//! [`RETRY_AFTER_FAILURE`], so an outage costs one timed-out call per second
//! per node, not one per request. See docs/decisions.md.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::db::Db;

/// How long a node keeps a lease of calls before handing back what is left.
pub const LEASE_TTL: Duration = Duration::from_secs(1);
/// The most calls one trip to the store leases.
pub const MAX_LEASE: u32 = 16;
/// A store that failed is not asked again for this long.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);
/// How long one check may wait for the store before failing open.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(250);
/// Leases and cached refusals kept per node before the idle ones are dropped.
const CACHE_KEYS: usize = 20_000;
/// Expired rows of the PostgreSQL table are deleted after this many checks.
const PRUNE_EVERY: u64 = 4096;

/// How a limit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// A burst of `limit`, then one call more every `period / limit`.
    Gcra,
    /// `limit` calls in a window of `period` started by the key's first call.
    FixedWindow,
}

/// `limit` calls per `period_ms`, counted by `algorithm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    pub limit: u32,
    pub period_ms: u64,
    pub algorithm: Algorithm,
}

impl Quota {
    /// The throttles' quota: `limit` per minute, with a burst of as many.
    #[must_use]
    pub const fn per_minute(limit: u32) -> Self {
        Self { limit, period_ms: 60_000, algorithm: Algorithm::Gcra }
    }
}

/// Why the shared store gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum LimiterError {
    #[error("SVC_REDIS_URL is not a usable Redis URL: {0}")]
    InvalidUrl(String),
    #[error("could not prepare the rate-limit table in PostgreSQL: {0}")]
    Setup(sqlx::Error),
    #[error("the rate-limit store did not answer: {0}")]
    Unavailable(String),
}

/// What the store said of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Refused: the next call can pass after this wait.
    Refused(Duration),
}

/// A window's state as [`Limiter::window_usage`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowState {
    pub used: u32,
    /// Until the window ends; zero when none is open.
    pub left_ms: u64,
}

/// The limiter of one service: memory, or a shared store. Cheap to clone.
#[derive(Clone, Default)]
pub struct Limiter {
    shared: Option<Arc<Shared>>,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter").field("engine", &self.engine()).finish_non_exhaustive()
    }
}

struct Shared {
    /// Prefix of every key: the service, so two services on one Redis
    /// never share a count.
    scope: String,
    store: Store,
    cache: Mutex<HashMap<String, Cached>>,
    /// Until when the store is not asked again after a failure.
    down_until: Mutex<Option<Instant>>,
    healthy: AtomicBool,
    checks: AtomicU64,
}

enum Store {
    Redis(Box<RedisStore>),
    Postgres(sqlx::PgPool),
}

#[derive(Debug, Default)]
struct Cached {
    leased: u32,
    lease_ends: Option<Instant>,
    refused_until: Option<Instant>,
}

impl Limiter {
    /// Counting in this process's memory: one node.
    #[must_use]
    pub fn memory() -> Self {
        Self { shared: None }
    }

    /// Counting in Redis at `url` (connected on first use, so a node starts
    /// while Redis is down and fails open until it answers).
    pub fn redis(url: &str, scope: &str) -> Result<Self, LimiterError> {
        let client = redis::Client::open(url).map_err(|e| LimiterError::InvalidUrl(e.to_string()))?;
        Ok(Self::with_store(Store::Redis(Box::new(RedisStore::new(client))), scope))
    }

    /// Counting in PostgreSQL (the table and function are created when
    /// missing, under an advisory lock so concurrent starts do not race).
    pub async fn postgres(pool: sqlx::PgPool, scope: &str) -> Result<Self, LimiterError> {
        let mut tx = pool.begin().await.map_err(LimiterError::Setup)?;
        sqlx::raw_sql(POSTGRES_SETUP).execute(&mut *tx).await.map_err(LimiterError::Setup)?;
        tx.commit().await.map_err(LimiterError::Setup)?;
        Ok(Self::with_store(Store::Postgres(pool), scope))
    }

    /// The engine the configuration names: Redis when `redis_url` is set,
    /// else PostgreSQL when the service's store is PostgreSQL (nodes may
    /// share it), else memory.
    pub async fn for_service(redis_url: Option<&str>, db: &Db, scope: &str) -> Result<Self, LimiterError> {
        match (redis_url.filter(|url| !url.trim().is_empty()), db) {
            (Some(url), _) => Self::redis(url.trim(), scope),
            (None, Db::Postgres(pool)) => Self::postgres(pool.clone(), scope).await,
            (None, Db::Sqlite(_)) => Ok(Self::memory()),
        }
    }

    fn with_store(store: Store, scope: &str) -> Self {
        Self {
            shared: Some(Arc::new(Shared {
                scope: scope.to_owned(),
                store,
                cache: Mutex::new(HashMap::new()),
                down_until: Mutex::new(None),
                healthy: AtomicBool::new(true),
                checks: AtomicU64::new(0),
            })),
        }
    }

    /// `memory`, `postgres` or `redis`.
    #[must_use]
    pub fn engine(&self) -> &'static str {
        match self.shared.as_deref().map(|s| &s.store) {
            None => "memory",
            Some(Store::Postgres(_)) => "postgres",
            Some(Store::Redis(_)) => "redis",
        }
    }

    /// Whether limits are counted outside this process.
    #[must_use]
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Counts one call of `key` under the limit `name`. `Err` when the
    /// limiter is memory-only or its store did not answer: the caller then
    /// counts in its own memory (fail open to a local limit).
    pub async fn hit(&self, name: &str, key: &str, quota: Quota, now_ms: i64) -> Result<Verdict, LimiterError> {
        let Some(shared) = &self.shared else {
            return Err(LimiterError::Unavailable("no shared store is configured".to_owned()));
        };
        if quota.limit == 0 {
            return Ok(Verdict::Allowed);
        }
        shared.hit(&format!("svc:rl:{}:{name}:{key}", shared.scope), quota, now_ms).await
    }

    /// The open window of `key` under a [`Algorithm::FixedWindow`] limit,
    /// without counting a call.
    pub async fn window_usage(
        &self,
        name: &str,
        key: &str,
        quota: Quota,
        now_ms: i64,
    ) -> Result<WindowState, LimiterError> {
        let Some(shared) = &self.shared else {
            return Err(LimiterError::Unavailable("no shared store is configured".to_owned()));
        };
        let full = format!("svc:rl:{}:{name}:{key}", shared.scope);
        let [used, left] = shared.call(&full, quota, now_ms, 0, 0, true).await?;
        Ok(WindowState {
            used: u32::try_from(used.max(0)).unwrap_or(u32::MAX),
            left_ms: u64::try_from(left.max(0)).unwrap_or(0),
        })
    }
}

impl Shared {
    async fn hit(&self, key: &str, quota: Quota, now_ms: i64) -> Result<Verdict, LimiterError> {
        let leasing = quota.algorithm == Algorithm::Gcra;
        let refund = {
            let now = Instant::now();
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            let mut refund = 0;
            if let Some(cached) = cache.get_mut(key) {
                if let Some(until) = cached.refused_until {
                    if now < until {
                        return Ok(Verdict::Refused(until - now));
                    }
                    cached.refused_until = None;
                }
                let live = cached.lease_ends.is_some_and(|ends| now < ends);
                if live && cached.leased > 0 {
                    cached.leased -= 1;
                    return Ok(Verdict::Allowed);
                }
                // What an expired lease did not use goes back with this trip.
                refund = std::mem::take(&mut cached.leased);
                cached.lease_ends = None;
            }
            refund
        };
        let max_lease = if leasing { MAX_LEASE } else { 1 };
        let answer = self.call(key, quota, now_ms, max_lease, refund, false).await;
        let [granted, wait_or_left] = match answer {
            Ok(answer) => answer,
            Err(err) => {
                // The refund is lost with the trip: the store is conservative
                // (it counted calls nobody made) until those calls recover.
                return Err(err);
            }
        };
        let now = Instant::now();
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHE_KEYS {
            cache.retain(|_, c| c.refused_until.is_some_and(|u| now < u) || c.lease_ends.is_some_and(|e| now < e));
        }
        if granted <= 0 {
            let wait = Duration::from_millis(u64::try_from(wait_or_left.max(1)).unwrap_or(1));
            cache.entry(key.to_owned()).or_default().refused_until = Some(now + wait);
            return Ok(Verdict::Refused(wait));
        }
        if granted > 1 {
            let cached = cache.entry(key.to_owned()).or_default();
            cached.leased += u32::try_from(granted - 1).unwrap_or(0);
            cached.lease_ends = Some(now + LEASE_TTL);
        }
        Ok(Verdict::Allowed)
    }

    /// One trip to the store: `[granted, wait_ms]` when refused (granted 0),
    /// `[granted, room_left]` when allowed; `[used, left_ms]` when peeking.
    async fn call(
        &self,
        key: &str,
        quota: Quota,
        now_ms: i64,
        max_lease: u32,
        refund: u32,
        peek: bool,
    ) -> Result<[i64; 2], LimiterError> {
        if let Some(until) = *self.down_until.lock().unwrap_or_else(PoisonError::into_inner)
            && Instant::now() < until
        {
            return Err(LimiterError::Unavailable("the store failed less than a second ago".to_owned()));
        }
        let args = Args {
            now_ms,
            algorithm: match quota.algorithm {
                Algorithm::Gcra => "g",
                Algorithm::FixedWindow => "w",
            },
            limit: i64::from(quota.limit),
            period_ms: i64::try_from(quota.period_ms).unwrap_or(i64::MAX).max(1),
            max_lease: i64::from(max_lease),
            refund: i64::from(refund),
            peek,
        };
        let outcome = match &self.store {
            Store::Redis(redis) => tokio::time::timeout(STORE_TIMEOUT, redis.call(key, &args)).await,
            Store::Postgres(pool) => {
                if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
                    let pool = pool.clone();
                    tokio::spawn(async move {
                        if let Err(err) = sqlx::query("DELETE FROM svc_rate_limits WHERE expires_at < $1")
                            .bind(now_ms)
                            .execute(&pool)
                            .await
                        {
                            tracing::debug!(error = %err, "pruning the rate-limit table failed");
                        }
                    });
                }
                tokio::time::timeout(STORE_TIMEOUT, postgres_call(pool, key, &args)).await
            }
        };
        let outcome = outcome.unwrap_or_else(|_| Err(format!("no answer within {} ms", STORE_TIMEOUT.as_millis())));
        match outcome {
            Ok(answer) => {
                if !self.healthy.swap(true, Ordering::Relaxed) {
                    tracing::info!(store = self.engine(), "the rate-limit store answers again: limits are shared");
                }
                Ok(answer)
            }
            Err(why) => {
                *self.down_until.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Instant::now() + RETRY_AFTER_FAILURE);
                if self.healthy.swap(false, Ordering::Relaxed) {
                    tracing::warn!(
                        store = self.engine(),
                        error = %why,
                        "the rate-limit store does not answer: each node limits by itself until it does"
                    );
                }
                Err(LimiterError::Unavailable(why))
            }
        }
    }

    fn engine(&self) -> &'static str {
        match self.store {
            Store::Redis(_) => "redis",
            Store::Postgres(_) => "postgres",
        }
    }
}

/// One call's arguments, as both stores take them.
struct Args {
    now_ms: i64,
    algorithm: &'static str,
    limit: i64,
    period_ms: i64,
    max_lease: i64,
    refund: i64,
    peek: bool,
}

/// A Redis connection made on first use and remade after a failure.
/// `ConnectionManager` reconnects by itself; the slot exists so that a node
/// whose Redis is down at start still starts.
struct RedisStore {
    client: redis::Client,
    connection: tokio::sync::Mutex<Option<redis::aio::ConnectionManager>>,
    script: redis::Script,
}

impl RedisStore {
    fn new(client: redis::Client) -> Self {
        Self { client, connection: tokio::sync::Mutex::new(None), script: redis::Script::new(REDIS_SCRIPT) }
    }

    async fn connection(&self) -> Result<redis::aio::ConnectionManager, String> {
        let mut slot = self.connection.lock().await;
        if let Some(connection) = slot.as_ref() {
            return Ok(connection.clone());
        }
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(STORE_TIMEOUT))
            .set_response_timeout(Some(STORE_TIMEOUT))
            .set_number_of_retries(1);
        let connection = redis::aio::ConnectionManager::new_with_config(self.client.clone(), config)
            .await
            .map_err(|e| e.to_string())?;
        *slot = Some(connection.clone());
        Ok(connection)
    }

    async fn call(&self, key: &str, args: &Args) -> Result<[i64; 2], String> {
        let mut connection = self.connection().await?;
        let answer: Vec<i64> = self
            .script
            .key(key)
            .arg(args.now_ms)
            .arg(args.algorithm)
            .arg(args.limit)
            .arg(args.period_ms)
            .arg(args.max_lease)
            .arg(args.refund)
            .arg(i64::from(args.peek))
            .invoke_async(&mut connection)
            .await
            .map_err(|e| e.to_string())?;
        pair(&answer)
    }
}

async fn postgres_call(pool: &sqlx::PgPool, key: &str, args: &Args) -> Result<[i64; 2], String> {
    let (answer,): (Vec<i64>,) = sqlx::query_as("SELECT svc_rate_take($1, $2, $3, $4, $5, $6, $7, $8)")
        .bind(key)
        .bind(args.now_ms)
        .bind(args.algorithm)
        .bind(args.limit)
        .bind(args.period_ms)
        .bind(args.max_lease)
        .bind(args.refund)
        .bind(args.peek)
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())?;
    pair(&answer)
}

fn pair(answer: &[i64]) -> Result<[i64; 2], String> {
    match answer {
        [a, b] => Ok([*a, *b]),
        other => Err(format!("the rate-limit script answered {} values instead of 2", other.len())),
    }
}

/// GCRA and the fixed window in Lua, run atomically by Redis. Times are the
/// caller's milliseconds (nodes keep their clocks in sync; a few
/// milliseconds of skew are nothing against limits per minute). Answers
/// `{granted, wait_ms}` when refused (granted 0), `{granted, room_left}`
/// when allowed, `{used, left_ms}` when peeking at a window.
const REDIS_SCRIPT: &str = r"
local key = KEYS[1]
local now = tonumber(ARGV[1])
local algorithm = ARGV[2]
local limit = tonumber(ARGV[3])
local period = tonumber(ARGV[4])
local max_lease = tonumber(ARGV[5])
local refund = tonumber(ARGV[6])
local peek = ARGV[7] == '1'
if algorithm == 'g' then
  local t = period / limit
  local tat = tonumber(redis.call('GET', key)) or now
  if refund > 0 then tat = tat - refund * t end
  if tat < now then tat = now end
  local room = math.floor((now + period - tat) / t + 1e-9)
  if room < 1 then
    if refund > 0 then redis.call('SET', key, tat, 'PX', math.ceil(tat - now) + 1) end
    return {0, math.ceil(tat - period + t - now)}
  end
  local grant = math.max(1, math.min(max_lease, math.floor(room / 16)))
  if grant > room then grant = room end
  tat = tat + grant * t
  redis.call('SET', key, tat, 'PX', math.ceil(tat - now) + 1)
  return {grant, room - grant}
end
local start = tonumber(redis.call('HGET', key, 's'))
local used = tonumber(redis.call('HGET', key, 'c')) or 0
if start == nil or now >= start + period then
  if peek then return {0, 0} end
  start = now
  used = 0
end
if peek then return {used, start + period - now} end
if used >= limit then return {0, start + period - now} end
used = used + 1
redis.call('HSET', key, 's', start, 'c', used)
redis.call('PEXPIRE', key, start + period - now + 1)
return {1, limit - used}
";

/// The same two algorithms in PL/pgSQL; the row lock of the upsert makes a
/// call atomic. Unlogged: counts are not worth a write-ahead log, and a
/// crash forgetting them only opens the limits once.
const POSTGRES_SETUP: &str = r"
SELECT pg_advisory_xact_lock(727732001);
CREATE UNLOGGED TABLE IF NOT EXISTS svc_rate_limits (
    key TEXT PRIMARY KEY,
    tat DOUBLE PRECISION NOT NULL,
    used BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL
);
CREATE OR REPLACE FUNCTION svc_rate_take(
    p_key TEXT, p_now BIGINT, p_algorithm TEXT, p_limit BIGINT, p_period BIGINT,
    p_max_lease BIGINT, p_refund BIGINT, p_peek BOOLEAN
) RETURNS BIGINT[] LANGUAGE plpgsql AS $$
DECLARE
    v_tat DOUBLE PRECISION;
    v_used BIGINT;
    v_t DOUBLE PRECISION;
    v_room BIGINT;
    v_grant BIGINT;
BEGIN
    IF p_peek THEN
        SELECT tat, used INTO v_tat, v_used FROM svc_rate_limits WHERE key = p_key;
        IF v_tat IS NULL OR p_now >= v_tat + p_period THEN
            RETURN ARRAY[0, 0]::BIGINT[];
        END IF;
        RETURN ARRAY[v_used, ceil(v_tat + p_period - p_now)]::BIGINT[];
    END IF;
    INSERT INTO svc_rate_limits (key, tat, used, expires_at) VALUES (p_key, p_now, 0, p_now)
        ON CONFLICT (key) DO NOTHING;
    SELECT tat, used INTO v_tat, v_used FROM svc_rate_limits WHERE key = p_key FOR UPDATE;
    IF p_algorithm = 'g' THEN
        v_t := p_period::DOUBLE PRECISION / p_limit;
        v_tat := v_tat - p_refund * v_t;
        IF v_tat < p_now THEN v_tat := p_now; END IF;
        v_room := floor((p_now + p_period - v_tat) / v_t + 1e-9);
        IF v_room < 1 THEN
            UPDATE svc_rate_limits SET tat = v_tat, expires_at = ceil(v_tat) WHERE key = p_key;
            RETURN ARRAY[0, ceil(v_tat - p_period + v_t - p_now)]::BIGINT[];
        END IF;
        v_grant := LEAST(v_room, GREATEST(1, LEAST(p_max_lease, floor(v_room / 16.0))));
        v_tat := v_tat + v_grant * v_t;
        UPDATE svc_rate_limits SET tat = v_tat, expires_at = ceil(v_tat) WHERE key = p_key;
        RETURN ARRAY[v_grant, v_room - v_grant]::BIGINT[];
    END IF;
    IF v_used = 0 OR p_now >= v_tat + p_period THEN
        v_tat := p_now;
        v_used := 0;
    END IF;
    IF v_used >= p_limit THEN
        RETURN ARRAY[0, ceil(v_tat + p_period - p_now)]::BIGINT[];
    END IF;
    v_used := v_used + 1;
    UPDATE svc_rate_limits SET tat = v_tat, used = v_used, expires_at = ceil(v_tat + p_period) WHERE key = p_key;
    RETURN ARRAY[1, p_limit - v_used]::BIGINT[];
END
$$;
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throttle::Throttle;

    fn scope() -> String {
        format!("test-{}", uuid::Uuid::new_v4().simple())
    }

    /// Two nodes (two limiters on one store) send `calls` between them,
    /// alternating; returns how many were allowed.
    async fn alternate(a: &Limiter, b: &Limiter, per_minute: u32, calls: usize) -> usize {
        let node_a = Throttle::<String>::shared(a, "mock.project", per_minute);
        let node_b = Throttle::<String>::shared(b, "mock.project", per_minute);
        let mut allowed = 0;
        for i in 0..calls {
            let node = if i % 2 == 0 { &node_a } else { &node_b };
            if node.check(&"p1".to_owned()).await.is_ok() {
                allowed += 1;
            }
        }
        allowed
    }

    #[tokio::test]
    async fn memory_nodes_each_allow_the_whole_limit() {
        // The failure the shared engines exist for: two nodes, twice the limit.
        let allowed = alternate(&Limiter::memory(), &Limiter::memory(), 120, 400).await;
        assert_eq!(allowed, 240);
    }

    #[tokio::test]
    async fn an_unreachable_redis_fails_open_to_each_nodes_own_limit() {
        // Nothing listens on port 1: the first check fails, the next ones
        // skip the store for a second; every check is still limited in memory.
        let limiter = Limiter::redis("redis://127.0.0.1:1/", &scope()).unwrap();
        assert_eq!(limiter.engine(), "redis");
        let throttle = Throttle::<String>::shared(&limiter, "signin", 3);
        for _ in 0..3 {
            throttle.check(&"ann".to_owned()).await.unwrap();
        }
        let refused = throttle.check(&"ann".to_owned()).await.unwrap_err();
        assert_eq!(refused.per_minute, 3);
        assert!(throttle.check(&"bob".to_owned()).await.is_ok(), "another key has its own budget");
        let direct = limiter.hit("signin", "carl", Quota::per_minute(3), 0).await;
        assert!(matches!(direct, Err(LimiterError::Unavailable(_))), "{direct:?}");
        assert!(matches!(Limiter::redis("not a url", "x"), Err(LimiterError::InvalidUrl(_))));
    }

    async fn shares_one_budget(a: &Limiter, b: &Limiter) {
        // 120 per minute refills 2 a second: a burst of 400 calls that takes
        // well under a second on two nodes gets 120, and at most a few more.
        let allowed = alternate(a, b, 120, 400).await;
        assert!((118..=124).contains(&allowed), "two nodes allowed {allowed} of a limit of 120");
        // A fixed window: 5 per 30 s across both nodes, then the wait.
        let quota = Quota { limit: 5, period_ms: 30_000, algorithm: Algorithm::FixedWindow };
        let now = 1_800_000_000_000;
        for i in 0..5 {
            let node = if i % 2 == 0 { a } else { b };
            assert_eq!(node.hit("app", "c1", quota, now + i).await.unwrap(), Verdict::Allowed);
        }
        match b.hit("app", "c1", quota, now + 1_500).await.unwrap() {
            Verdict::Refused(wait) => assert_eq!(wait.as_millis().div_ceil(1000), 29),
            Verdict::Allowed => panic!("a sixth call in the window passed"),
        }
        let usage = a.window_usage("app", "c1", quota, now + 10_000).await.unwrap();
        assert_eq!(usage, WindowState { used: 5, left_ms: 20_000 });
        let ended = a.window_usage("app", "c1", quota, now + 31_000).await.unwrap();
        assert_eq!(ended, WindowState { used: 0, left_ms: 0 });
        assert_eq!(a.hit("app", "c1", quota, now + 30_000).await.unwrap(), Verdict::Allowed);
        // A refusal is cached: the next call of that key on that node is
        // refused without asking the store.
        let tight = Quota::per_minute(1);
        assert_eq!(a.hit("tight", "k", tight, now).await.unwrap(), Verdict::Allowed);
        assert!(matches!(a.hit("tight", "k", tight, now).await.unwrap(), Verdict::Refused(_)));
        assert!(
            a.shared
                .as_ref()
                .unwrap()
                .cache
                .lock()
                .unwrap()
                .get(&format!("svc:rl:{}:tight:k", a.shared.as_ref().unwrap().scope))
                .unwrap()
                .refused_until
                .is_some()
        );
    }

    #[tokio::test]
    async fn two_nodes_on_one_redis_share_one_budget() {
        let Some(url) = crate::testing::redis_url().await else { return };
        let scope = scope();
        let a = Limiter::redis(&url, &scope).unwrap();
        let b = Limiter::redis(&url, &scope).unwrap();
        shares_one_budget(&a, &b).await;
    }

    #[tokio::test]
    async fn two_nodes_on_one_postgres_share_one_budget() {
        let Some(Db::Postgres(pool)) = crate::testing::fresh_postgres("limiter").await else { return };
        let scope = scope();
        // Both nodes prepare the table at start, as two nodes starting
        // together would.
        let (a, b) = tokio::join!(Limiter::postgres(pool.clone(), &scope), Limiter::postgres(pool.clone(), &scope));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.engine(), "postgres");
        shares_one_budget(&a, &b).await;
        pool.close().await;
    }

    #[tokio::test]
    async fn an_expired_lease_is_handed_back() {
        let Some(url) = crate::testing::redis_url().await else { return };
        let scope = scope();
        let a = Limiter::redis(&url, &scope).unwrap();
        let quota = Quota::per_minute(160);
        // The first trip leases 160 / 16 = 10 calls: one used, nine held.
        assert_eq!(a.hit("lease", "k", quota, 1_000).await.unwrap(), Verdict::Allowed);
        let key = format!("svc:rl:{scope}:lease:k");
        let held = a.shared.as_ref().unwrap().cache.lock().unwrap().get(&key).map(|c| c.leased);
        assert_eq!(held, Some(9));
        // Expire the lease; the next trip hands the nine back and takes one
        // more lease: the store has counted 1 + 1 used calls plus that lease.
        a.shared.as_ref().unwrap().cache.lock().unwrap().get_mut(&key).unwrap().lease_ends = Some(Instant::now());
        assert_eq!(a.hit("lease", "k", quota, 1_000).await.unwrap(), Verdict::Allowed);
        let b = Limiter::redis(&url, &scope).unwrap();
        let mut allowed = 2;
        while b.hit("lease", "k", quota, 1_000).await.unwrap() == Verdict::Allowed {
            allowed += 1;
        }
        let held = a.shared.as_ref().unwrap().cache.lock().unwrap().get(&key).map_or(0, |c| c.leased);
        assert_eq!(allowed + held, 160, "every call of the limit is either used or held");
    }
}
