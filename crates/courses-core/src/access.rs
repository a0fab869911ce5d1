//! Workspaces, API keys, the request gate (key, rate, scope, standing) and
//! the plan gates and allowances.

use kernel::{Secret, Timestamp};

use crate::error::{CoursesError, CoursesResult, KeyRejection, Suspension, Throttle};
use crate::keys::{hash_bearer, mint_key};
use crate::model::{Access, ApiKeyInfo, Usage, Workspace};
use crate::plans::{self, Feature, GRACE_PERIOD_DAYS, Plan};
use crate::{Courses, content};

/// Requests per key per rolling window.
pub const RATE_LIMIT: u32 = 120;
pub const RATE_WINDOW_SECS: u32 = 60;

pub const METRIC_VIEWS: &str = "course_views";
pub const METRIC_GENERATIONS: &str = "generations";

/// Methods a read-only key may use.
pub fn is_read_method(method: &str) -> bool {
    matches!(method, "GET" | "HEAD" | "OPTIONS")
}

pub(crate) fn workspace_name(name: &str) -> CoursesResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CoursesError::field(&["name"], crate::issues::code::TOO_SMALL, "name must not be empty"));
    }
    if name.chars().count() > 100 {
        return Err(CoursesError::field(&["name"], crate::issues::code::TOO_BIG, "name is at most 100 characters"));
    }
    Ok(name.to_owned())
}

impl Courses {
    pub async fn create_workspace(&self, name: &str, plan: Plan) -> CoursesResult<Workspace> {
        let now = self.clock.now();
        let ws = Workspace {
            id: content::new_id("ws"),
            name: workspace_name(name)?,
            plan,
            payment_failed_at: None,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_workspace(&ws).await?;
        Ok(ws)
    }

    pub async fn workspace(&self, id: &str) -> CoursesResult<Workspace> {
        self.store.workspace(id).await?.ok_or(CoursesError::not_found("workspace"))
    }

    /// Mints a key for the workspace; the plaintext is returned only here.
    pub async fn create_key(
        &self,
        workspace_id: &str,
        name: &str,
        read_only: bool,
    ) -> CoursesResult<(ApiKeyInfo, Secret<String>)> {
        let ws = self.workspace(workspace_id).await?;
        let minted = mint_key();
        let name = name.trim();
        let info = ApiKeyInfo {
            id: content::new_id("key"),
            workspace_id: ws.id,
            name: if name.is_empty() { "default".to_owned() } else { name.chars().take(100).collect() },
            display: minted.display,
            read_only,
            revoked_at: None,
            last_used_at: None,
            created_at: self.clock.now(),
        };
        self.store.insert_key(&info, &minted.hash).await?;
        Ok((info, minted.plaintext))
    }

    pub async fn list_keys(&self, access: &Access) -> CoursesResult<Vec<ApiKeyInfo>> {
        Ok(self.store.list_keys(&access.workspace.id).await?)
    }

    /// Revokes a key of the caller's workspace; its next use answers 401.
    pub async fn revoke_key(&self, access: &Access, key_id: &str) -> CoursesResult<()> {
        if self.store.revoke_key(&access.workspace.id, key_id, self.clock.now()).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("API key"))
        }
    }

    /// The gate every API request passes, in this order: a valid key (401),
    /// the per-key rate (429), the key's scope (403), the workspace's
    /// standing (402).
    pub async fn authorize(&self, authorization: Option<&str>, method: &str) -> CoursesResult<Access> {
        let hash = hash_bearer(authorization).map_err(CoursesError::Unauthorized)?;
        let (key, workspace) =
            self.store.key_by_hash(&hash).await?.ok_or(CoursesError::Unauthorized(KeyRejection::Unknown))?;
        if key.revoked_at.is_some() {
            return Err(CoursesError::Unauthorized(KeyRejection::Revoked));
        }
        let now = self.clock.now();
        self.hit_rate(&key.id).await?;
        if key.read_only && !is_read_method(method) {
            return Err(CoursesError::InsufficientScope { method: method.to_owned() });
        }
        self.check_standing(&workspace, now).await?;
        Ok(Access { workspace, key_id: key.id, read_only: key.read_only })
    }

    /// Counts one request of `key_id` against the per-key rate, or answers
    /// 429 with the wait.
    async fn hit_rate(&self, key_id: &str) -> CoursesResult<()> {
        let now = self.clock.now();
        let window_ms = i64::from(RATE_WINDOW_SECS) * 1000;
        match self.store.hit_rate(key_id, now, window_ms, i64::from(self.rate_limit)).await? {
            None => Ok(()),
            Some(retry_at) => Err(CoursesError::RateLimited {
                throttle: Throttle::Requests { limit: self.rate_limit, window_secs: RATE_WINDOW_SECS },
                retry_after_secs: plans::seconds_until(now, retry_at),
            }),
        }
    }

    /// Counts `calls` more requests of an authorised key (the further calls
    /// of an MCP batch: each call counts like a request of its own).
    pub async fn count_calls(&self, access: &Access, calls: usize) -> CoursesResult<()> {
        for _ in 0..calls {
            self.hit_rate(&access.key_id).await?;
        }
        Ok(())
    }

    /// 402 when the workspace is suspended: a Sandbox past its course views
    /// this month, or an unpaid invoice past its grace period.
    pub async fn check_standing(&self, ws: &Workspace, now: Timestamp) -> CoursesResult<()> {
        if let Some(failed_at) = ws.payment_failed_at {
            let grace_ended_at = failed_at.plus_days(GRACE_PERIOD_DAYS);
            if now >= grace_ended_at {
                return Err(CoursesError::Suspended(Suspension::UnpaidInvoice { failed_at, grace_ended_at }));
            }
        }
        if ws.plan.hard_capped() {
            let month = plans::month_of(now);
            let views = self.store.usage(&ws.id, &month, METRIC_VIEWS).await?;
            if views >= ws.plan.course_views() {
                return Err(self.allowance_used(ws.plan, month, now));
            }
        }
        Ok(())
    }

    fn allowance_used(&self, plan: Plan, month: String, now: Timestamp) -> CoursesError {
        let _ = self;
        CoursesError::Suspended(Suspension::AllowanceUsed {
            plan,
            allowance: plan.course_views(),
            month,
            resets_at: plans::next_month_start(now),
        })
    }

    /// 403 `plan_required` unless the workspace's plan unlocks `feature`.
    pub fn require(&self, access: &Access, feature: Feature) -> CoursesResult<()> {
        let _ = self;
        if access.workspace.plan.allows(feature) {
            Ok(())
        } else {
            Err(CoursesError::PlanRequired { feature, current: access.workspace.plan })
        }
    }

    /// Takes one AI generation from the month's allowance, or answers 429.
    pub async fn take_generation(&self, ws: &Workspace) -> CoursesResult<()> {
        let now = self.clock.now();
        let month = plans::month_of(now);
        let cap = ws.plan.generations();
        if self.store.take_unit(&ws.id, &month, METRIC_GENERATIONS, cap).await? {
            return Ok(());
        }
        Err(CoursesError::RateLimited {
            throttle: Throttle::Generations { plan: ws.plan, allowance: cap.unwrap_or(0), month },
            retry_after_secs: plans::seconds_until(now, plans::next_month_start(now)),
        })
    }

    /// Removes rate-window rows that no longer count (a periodic job).
    pub async fn prune_rate_hits(&self) -> CoursesResult<u64> {
        let before = self.clock.now().plus_millis(-i64::from(RATE_WINDOW_SECS) * 1000);
        Ok(self.store.prune_rate_hits(before).await?)
    }

    /// Removes anonymous-preview rows of past days (a periodic job).
    pub async fn prune_previews(&self) -> CoursesResult<u64> {
        let before = self.clock.now().plus_days(-2);
        Ok(self.store.prune_previews(before).await?)
    }

    /// This month's metered usage of the caller's workspace.
    pub async fn usage(&self, access: &Access) -> CoursesResult<Usage> {
        let ws = &access.workspace;
        let month = plans::month_of(self.clock.now());
        let views = self.store.usage(&ws.id, &month, METRIC_VIEWS).await?;
        let generations = self.store.usage(&ws.id, &month, METRIC_GENERATIONS).await?;
        let overage = if ws.plan.hard_capped() { 0 } else { views.saturating_sub(ws.plan.course_views()) };
        Ok(Usage {
            month,
            plan: ws.plan,
            course_views: views,
            course_views_allowance: ws.plan.course_views(),
            course_views_overage: overage,
            generations,
            generations_allowance: ws.plan.generations(),
        })
    }

    pub async fn rename_workspace(&self, access: &Access, name: &str) -> CoursesResult<Workspace> {
        let mut ws = access.workspace.clone();
        ws.name = workspace_name(name)?;
        ws.updated_at = self.clock.now();
        self.store.update_workspace(&ws).await?;
        Ok(ws)
    }

    /// Operator view: every workspace with its plan, standing, key and
    /// course counts, so an operator finds the id `set-plan` and `billing`
    /// take.
    pub async fn workspace_summaries(&self) -> CoursesResult<Vec<crate::model::WorkspaceSummary>> {
        Ok(self.store.workspace_summaries().await?)
    }

    /// Operator view: the members of a workspace with their roles.
    pub async fn workspace_members(&self, workspace_id: &str) -> CoursesResult<Vec<crate::members::Member>> {
        Ok(self.store.members(workspace_id).await?)
    }

    /// Operator action: move a workspace to another plan (nothing is deleted
    /// on a downgrade; a Sandbox cap clears on upgrade).
    pub async fn set_plan(&self, workspace_id: &str, plan: Plan) -> CoursesResult<Workspace> {
        let mut ws = self.workspace(workspace_id).await?;
        ws.plan = plan;
        ws.updated_at = self.clock.now();
        self.store.update_workspace(&ws).await?;
        Ok(ws)
    }

    /// Billing: a charge failed now (starts the grace period) or the invoice
    /// was paid (clears any suspension at once).
    pub async fn set_payment_failed(&self, workspace_id: &str, failed: bool) -> CoursesResult<Workspace> {
        let mut ws = self.workspace(workspace_id).await?;
        let now = self.clock.now();
        ws.payment_failed_at = if failed { Some(ws.payment_failed_at.unwrap_or(now)) } else { None };
        ws.updated_at = now;
        self.store.update_workspace(&ws).await?;
        Ok(ws)
    }
}
