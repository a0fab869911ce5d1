//! Version use cases: push (including previews), list, read, update, delete,
//! and the pruning of expired previews.

use bytes_like::Body;
use kernel::{Page, PageRequest};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{AuditEvent, Principal, ProjectAccess, Source, Version};
use crate::names::{HttpUrl, Label};
use crate::plans::{Feature, fixed};
use crate::roles::Action;
use crate::store::{PreviewFields, UploadOutcome, VersionChanges, VersionTransition, VersionUpload};

mod bytes_like {
    /// The raw pushed document. Shared, so moving it to the parsing thread
    /// does not copy up to 50 MB.
    pub type Body = std::sync::Arc<[u8]>;
}

/// A spec push, as the API and the CLI send it.
#[derive(Clone, Debug)]
pub struct PushVersion {
    pub label: Option<String>,
    pub make_default: bool,
    pub preview: bool,
    pub pr: Option<i64>,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub body: Body,
}

/// The stored version and whether the push created it (rather than
/// replacing the spec of an existing label).
#[derive(Clone, Debug)]
pub struct PushOutcome {
    pub version: Version,
    pub created: bool,
}

/// A sparse version update.
#[derive(Clone, Debug, Default)]
pub struct VersionPatch {
    pub is_default: Option<bool>,
    pub is_active: Option<bool>,
    pub base_url: Option<Option<String>>,
}

impl Hub {
    pub async fn list_versions(
        &self,
        principal: &Principal,
        slug: &str,
        include_previews: bool,
        page: PageRequest,
    ) -> HubResult<Page<Version>> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        self.store.list_versions(&found.project.id, include_previews, self.clock.now(), page).await
    }

    pub async fn version(&self, principal: &Principal, slug: &str, label: &str) -> HubResult<Version> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        self.store.version(&found.project.id, label, self.clock.now()).await?.ok_or(HubError::not_found("version"))
    }

    /// The stored document of a version, as pushed.
    pub async fn version_document(
        &self,
        principal: &Principal,
        slug: &str,
        label: &str,
    ) -> HubResult<(Version, bytes::Bytes)> {
        let version = self.version(principal, slug, label).await?;
        let document = self.blobs.get(&version.spec_sha256).await?.ok_or_else(|| {
            HubError::Internal(format!("blob {} of version {} is missing", version.spec_sha256, version.id))
        })?;
        Ok((version, document))
    }

    /// The document of the project's default version, as pushed.
    pub async fn default_document(&self, principal: &Principal, slug: &str) -> HubResult<(Version, bytes::Bytes)> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        let version =
            self.store.default_version(&found.project.id).await?.ok_or(HubError::not_found("default version"))?;
        let document = self.blobs.get(&version.spec_sha256).await?.ok_or_else(|| {
            HubError::Internal(format!("blob {} of version {} is missing", version.spec_sha256, version.id))
        })?;
        Ok((version, document))
    }

    /// Parses and stores a pushed spec as a version of the project.
    pub async fn push_version(
        &self,
        principal: &Principal,
        slug: &str,
        push: PushVersion,
        source: Source,
    ) -> HubResult<PushOutcome> {
        let found = self.authorize_project(principal, slug, Action::PushVersion).await?;
        let preview = validate_preview_fields(&push, &found)?;
        if push.body.len() > fixed::MAX_SPEC_BYTES {
            return Err(HubError::TooLarge { limit: fixed::MAX_SPEC_BYTES });
        }
        let explicit_label = push.label.as_deref().map(Label::parse).transpose()?;
        let limits = self.spec_limits.clone();
        let body = push.body.clone();
        // Parsing a large document is CPU work; keep it off the async workers.
        let parsed = tokio::task::spawn_blocking(move || spec::parse_with(&body, &limits))
            .await
            .map_err(|e| HubError::Internal(format!("spec parser task failed: {e}")))?
            .map_err(HubError::InvalidSpec)?;
        let now = self.clock.now();
        let label = match explicit_label {
            Some(label) => label,
            None => default_label(&parsed.api_version, now),
        };
        let sha = self.blobs.put(bytes::Bytes::copy_from_slice(&push.body)).await?;
        let project = &found.project;
        let upload = VersionUpload {
            project_id: &project.id,
            new_id: &uuid::Uuid::now_v7().to_string(),
            label: label.as_str(),
            spec_format: parsed.format.as_str(),
            spec_sha256: &sha,
            spec_size: i64::try_from(push.body.len()).unwrap_or(i64::MAX),
            title: &parsed.title,
            api_version: &parsed.api_version,
            operation_count: i64::try_from(parsed.operation_count()).unwrap_or(i64::MAX),
            make_default: push.make_default,
            preview: preview.map(|(pr_number, commit_sha, branch)| PreviewFields {
                pr_number,
                commit_sha,
                branch,
                expires_at: now.plus_days(fixed::PREVIEW_LIFETIME_DAYS),
            }),
            max_previews: fixed::MAX_PREVIEWS_PER_PROJECT,
            now,
        };
        let (outcome, version) = self
            .store
            .upload_version(&upload, |outcome, version, promoted| {
                let action = match (outcome, version.is_preview) {
                    (UploadOutcome::Created, true) => AuditAction::PreviewCreated,
                    (UploadOutcome::Replaced, true) => AuditAction::PreviewUpdated,
                    (UploadOutcome::Created, false) => AuditAction::SpecUploaded,
                    (UploadOutcome::Replaced, false) => AuditAction::SpecSynced,
                };
                let mut drafts = vec![
                    version_draft(action, version)
                        .meta("spec_format", version.spec_format.as_str())
                        .meta("spec_size", version.spec_size)
                        .meta("spec_sha256", version.spec_sha256.as_str()),
                ];
                if promoted {
                    drafts.push(version_draft(AuditAction::VersionPromotedDefault, version));
                }
                self.audit_rows(&found, principal, source, drafts)
            })
            .await
            .inspect(|_| self.mock_changed())?;
        // A collector may have deleted an identical blob nobody referenced
        // between the put above and the version's commit: store it again.
        if !self.blobs.contains(&sha).await? {
            self.blobs.put(bytes::Bytes::copy_from_slice(&push.body)).await?;
        }
        // New operations appear in the monitor list, unmonitored; a failure
        // here leaves the rows to be written on first read.
        if let Err(err) = self.sync_monitors(&version, &parsed).await {
            tracing::warn!(error = %err, version = %version.id, "could not write the version's monitor rows");
        }
        self.prepare_docs_search(&sha, parsed);
        Ok(PushOutcome { created: outcome == UploadOutcome::Created, version })
    }

    pub async fn update_version(
        &self,
        principal: &Principal,
        slug: &str,
        label: &str,
        patch: VersionPatch,
        source: Source,
    ) -> HubResult<Version> {
        let found = self.authorize_project(principal, slug, Action::UpdateVersion).await?;
        let base_url = match &patch.base_url {
            Some(Some(url)) => Some(Some(HttpUrl::parse("base_url", url)?)),
            Some(None) => Some(None),
            None => None,
        };
        let changes = VersionChanges {
            is_default: patch.is_default,
            is_active: patch.is_active,
            base_url: base_url.as_ref().map(|u| u.as_ref().map(HttpUrl::as_str)),
        };
        self.store
            .update_version(&found.project.id, label, &changes, self.clock.now(), |t: VersionTransition, version| {
                let mut drafts = Vec::new();
                if t.promoted {
                    drafts.push(version_draft(AuditAction::VersionPromotedDefault, version));
                }
                if t.deactivated {
                    drafts.push(version_draft(AuditAction::VersionDeactivated, version));
                }
                if t.reactivated {
                    drafts.push(version_draft(AuditAction::VersionReactivated, version));
                }
                if t.base_url_changed {
                    drafts.push(version_draft(AuditAction::VersionUpdated, version).meta("fields", vec!["base_url"]));
                }
                self.audit_rows(&found, principal, source, drafts)
            })
            .await
            .inspect(|_| self.mock_changed())
    }

    pub async fn delete_version(
        &self,
        principal: &Principal,
        slug: &str,
        label: &str,
        source: Source,
    ) -> HubResult<()> {
        let found = self.authorize_project(principal, slug, Action::DeleteVersion).await?;
        self.store
            .delete_version(&found.project.id, label, self.clock.now(), |version| {
                self.audit_rows(&found, principal, source, vec![version_draft(AuditAction::VersionDeleted, version)])
                    .into_iter()
                    .next()
            })
            .await
            .inspect(|_| self.mock_changed())
    }

    /// Removes previews past their expiry. Run by the scheduler and by the
    /// cron route; returns how many were removed.
    pub async fn prune_expired_previews(&self) -> HubResult<u64> {
        self.store
            .prune_expired_previews(self.clock.now(), |version, owner_id, owner_plan| {
                self.audit_row(
                    owner_id,
                    owner_plan,
                    owner_id,
                    Source::System,
                    version_draft(AuditAction::PreviewExpired, version),
                )
            })
            .await
            .inspect(|_| self.mock_changed())
    }

    fn audit_rows(
        &self,
        found: &ProjectAccess,
        principal: &Principal,
        source: Source,
        drafts: Vec<AuditDraft>,
    ) -> Vec<AuditEvent> {
        drafts
            .into_iter()
            .filter_map(|d| self.audit_row(&found.project.owner_id, found.owner_plan, &principal.user_id, source, d))
            .collect()
    }
}

fn version_draft(action: AuditAction, version: &Version) -> AuditDraft {
    AuditDraft::new(action, "version", &version.id).project(&version.project_id).meta("label", version.label.as_str())
}

type PreviewInput<'a> = (Option<i64>, Option<&'a str>, Option<&'a str>);

/// Checks the preview-related push parameters: previews need the owner's plan
/// to allow them, cannot be made default, and carry valid CI metadata.
fn validate_preview_fields<'a>(push: &'a PushVersion, found: &ProjectAccess) -> HubResult<Option<PreviewInput<'a>>> {
    if !push.preview {
        if push.pr.is_some() || push.commit.is_some() || push.branch.is_some() {
            return Err(HubError::validation("preview", "pr, commit and branch describe previews; add preview=true"));
        }
        return Ok(None);
    }
    if !found.owner_plan.allows(Feature::PreviewPushes) {
        return Err(HubError::PlanRequired { feature: Feature::PreviewPushes, current: found.owner_plan });
    }
    if push.make_default {
        return Err(HubError::validation("makeDefault", "a preview version cannot be the default version"));
    }
    if push.pr.is_some_and(|pr| pr <= 0) {
        return Err(HubError::validation("pr", "pr must be a positive pull-request number"));
    }
    let commit = push.commit.as_deref().map(str::trim).filter(|c| !c.is_empty());
    if commit.is_some_and(|c| c.len() > 64 || !c.bytes().all(|b| b.is_ascii_alphanumeric())) {
        return Err(HubError::validation("commit", "commit must be a commit hash of at most 64 letters and digits"));
    }
    let branch = push.branch.as_deref().map(str::trim).filter(|b| !b.is_empty());
    if branch.is_some_and(|b| b.len() > 255 || b.chars().any(char::is_control)) {
        return Err(HubError::validation("branch", "branch must be at most 255 characters without control characters"));
    }
    Ok(Some((push.pr, commit, branch)))
}

/// The label of a push without one: the document's own version when it is a
/// valid label, else the push time (GraphQL SDL has no version field).
fn default_label(api_version: &str, now: kernel::Timestamp) -> Label {
    Label::parse(api_version.trim())
        .or_else(|_| Label::parse(&now.to_rfc3339().replace(':', "-")))
        .unwrap_or_else(|_| fallback_label())
}

#[expect(clippy::expect_used, reason = "a constant label that passes validation")]
fn fallback_label() -> Label {
    Label::parse("latest").expect("constant label is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_labels_use_the_document_version_or_the_time() {
        let now = kernel::Timestamp::from_millis(0);
        assert_eq!(default_label("1.2.0", now).as_str(), "1.2.0");
        assert_eq!(default_label("", now).as_str(), "1970-01-01T00-00-00.000Z");
        assert_eq!(default_label("a/b", now).as_str(), "1970-01-01T00-00-00.000Z");
    }
}
