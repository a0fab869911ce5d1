//! Spec diffs between two versions of a project (Pro and up, 60 requests
//! per minute per project).

use crate::Hub;
use crate::error::{HubError, HubResult};
use crate::model::Principal;
use crate::plans::{Feature, fixed};
use crate::roles::Action;

const MINUTE_MS: i64 = 60_000;

/// A diff between two labelled versions.
#[derive(Debug, Clone)]
pub struct VersionDiff {
    pub from: String,
    pub to: String,
    pub report: diff::Report,
}

impl Hub {
    pub async fn diff_versions(
        &self,
        principal: &Principal,
        slug: &str,
        from: &str,
        to: &str,
    ) -> HubResult<VersionDiff> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        if !found.owner_plan.allows(Feature::Diffs) {
            return Err(HubError::PlanRequired { feature: Feature::Diffs, current: found.owner_plan });
        }
        self.limit_per_project(&found.project.id, "diff", fixed::SDK_DIFF_REQUESTS_PER_MINUTE).await?;
        let (old_version, old_bytes) = self.version_document(principal, slug, from).await?;
        let (new_version, new_bytes) = self.version_document(principal, slug, to).await?;
        let limits = self.spec_limits.clone();
        // Parsing and diffing large documents is CPU work: off the async workers.
        let report = tokio::task::spawn_blocking(move || {
            let old = spec::parse_with(&old_bytes, &limits).map_err(HubError::InvalidSpec)?;
            let new = spec::parse_with(&new_bytes, &limits).map_err(HubError::InvalidSpec)?;
            diff::diff(&old, &new).map_err(|e| HubError::validation("to", e.to_string()))
        })
        .await
        .map_err(|e| HubError::Internal(format!("diff task failed: {e}")))??;
        Ok(VersionDiff { from: old_version.label, to: new_version.label, report })
    }

    /// Counts a request against a per-project, per-route minute budget.
    pub(crate) async fn limit_per_project(&self, project_id: &str, route: &str, limit: u32) -> HubResult<()> {
        let now = self.clock.now();
        let count = self.store.count_request(&format!("{route}:{project_id}"), MINUTE_MS, now).await?;
        if count > i64::from(limit) {
            let elapsed = now.as_millis().rem_euclid(MINUTE_MS);
            let retry_after_secs = u64::try_from((MINUTE_MS - elapsed + 999) / 1000).unwrap_or(60).max(1);
            return Err(HubError::RateLimited { limit, retry_after_secs });
        }
        Ok(())
    }
}
