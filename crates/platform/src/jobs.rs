//! Scheduled work that runs once per period across all nodes.
//!
//! Every node runs the same loop; before doing the work of a period it claims
//! the `(job, slot)` pair with a unique insert into `job_runs`. Exactly one
//! node wins each slot, so a job never fires twice for one period even with
//! many nodes sharing PostgreSQL. The table lives in each service's own
//! migrations (same shape everywhere).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kernel::{Clock, StoreError};

use crate::db::{Db, store_error};
use crate::with_db;

/// Claims the run of `job` for the period containing `now`. Returns true when
/// this caller won and should do the work.
pub async fn claim_slot(db: &Db, job: &str, period_ms: i64, now_ms: i64) -> Result<bool, StoreError> {
    let slot = now_ms.div_euclid(period_ms.max(1));
    claim(db, job, slot, now_ms).await
}

/// The unique insert that decides which caller runs `(job, slot)`.
async fn claim(db: &Db, job: &str, slot: i64, now_ms: i64) -> Result<bool, StoreError> {
    let inserted = with_db!(db, |pool| {
        sqlx::query("INSERT INTO job_runs (job, slot, claimed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
            .bind(job)
            .bind(slot)
            .bind(now_ms)
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
            .map_err(store_error)
    })?;
    Ok(inserted == 1)
}

/// Spawns a loop that wakes every `period`, claims the slot and runs `work`.
/// The loop ends when `shutdown` resolves.
pub fn spawn_periodic<F, Fut>(
    db: Db,
    clock: Arc<dyn Clock>,
    job: &'static str,
    period: Duration,
    shutdown: tokio::sync::watch::Receiver<bool>,
    work: F,
) -> tokio::task::JoinHandle<()>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let period_ms = i64::try_from(period.as_millis()).unwrap_or(i64::MAX);
    tokio::spawn(async move {
        let mut shutdown = shutdown;
        let mut ticker = tokio::time::interval(period);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                _ = shutdown.changed() => break,
            }
            match claim_slot(&db, job, period_ms, clock.now().as_millis()).await {
                Ok(true) => work().await,
                Ok(false) => tracing::debug!(job, "another node owns this period"),
                Err(err) => tracing::warn!(job, error = %err, "could not claim the job slot"),
            }
        }
    })
}

const DAY_MS: i64 = 86_400_000;

/// Claims the run of a daily job due at `offset_ms` after midnight UTC (for
/// 03:23, `(3 * 60 + 23) * 60_000`). The day's slot opens at that instant;
/// a node that starts later the same day still claims it (the run is late,
/// never lost), and exactly one caller per day wins.
pub async fn claim_daily(db: &Db, job: &str, offset_ms: i64, now_ms: i64) -> Result<bool, StoreError> {
    let slot = (now_ms - offset_ms).div_euclid(DAY_MS);
    claim(db, job, slot, now_ms).await
}

/// Spawns a loop that looks every minute whether the daily run of `job` at
/// `offset_ms` after midnight UTC is due, claims it and runs `work`. The
/// loop ends when `shutdown` resolves.
pub fn spawn_daily_at<F, Fut>(
    db: Db,
    clock: Arc<dyn Clock>,
    job: &'static str,
    offset_ms: i64,
    shutdown: tokio::sync::watch::Receiver<bool>,
    work: F,
) -> tokio::task::JoinHandle<()>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    tokio::spawn(async move {
        let mut shutdown = shutdown;
        let mut ticker = tokio::time::interval(Duration::from_secs(60));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                _ = shutdown.changed() => break,
            }
            match claim_daily(&db, job, offset_ms, clock.now().as_millis()).await {
                Ok(true) => work().await,
                Ok(false) => {}
                Err(err) => tracing::warn!(job, error = %err, "could not claim the daily job"),
            }
        }
    })
}
