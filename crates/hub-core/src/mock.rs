//! The mock server's use cases: what a mock request may see of a project,
//! the per-project settings and overrides behind the role gate (audited),
//! sequential example counters and the request log.

use kernel::Timestamp;
use mock::overrides::{self, OverrideSpec};
use serde::Serialize;
use serde_json::Value;

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, Source};
use crate::roles::Action;

/// How long request-log rows are kept.
pub const LOG_RETENTION_MS: i64 = 14 * 24 * 60 * 60 * 1000;

/// One version the mock can serve.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct MockVersion {
    pub label: String,
    pub spec_sha256: String,
    pub spec_format: String,
    pub is_default: bool,
    pub is_preview: bool,
}

/// A stored override: its id and what the API accepts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredOverride {
    pub id: String,
    #[serde(flatten)]
    pub spec: OverrideSpec,
}

impl From<StoredOverride> for overrides::Override {
    fn from(stored: StoredOverride) -> Self {
        Self { id: stored.id, spec: stored.spec }
    }
}

/// Everything a mock request needs to know about a project, read at once.
#[derive(Clone, Debug)]
pub struct MockSnapshot {
    pub project_id: String,
    pub versions: Vec<MockVersion>,
    pub settings: mock::Settings,
    pub overrides: Vec<StoredOverride>,
}

/// Why a project's mock does not answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MockClosed {
    /// Absent or private: answered exactly like a missing project.
    NotFound,
    /// The project is password-protected.
    PasswordProtected,
}

/// One row of the request log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct LogEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    #[serde(skip)]
    pub project_id: String,
    /// Milliseconds since the epoch.
    pub at: i64,
    pub method: String,
    pub path: String,
    pub query: String,
    pub status: i32,
    pub synth: String,
    pub override_id: Option<String>,
    pub version: String,
    pub duration_us: i64,
    pub client_ip: String,
}

/// How an import treats the overrides already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportMode {
    Merge,
    Replace,
}

/// What an import did.
#[derive(Clone, Debug, Serialize)]
pub struct ImportReport {
    pub imported: usize,
    pub skipped: Vec<overrides::Skipped>,
    pub total: usize,
    /// Forbidden response headers (cookies, policies, CORS) removed from
    /// the imported entries.
    pub dropped_headers: usize,
}

fn invalid(err: overrides::InvalidOverride) -> HubError {
    HubError::InvalidField { field: err.field, message: err.message }
}

impl Hub {
    /// The public side: the snapshot a mock request at `/mock/<slug>` uses.
    pub async fn mock_snapshot(&self, slug: &str) -> HubResult<Result<MockSnapshot, MockClosed>> {
        self.mock_snapshot_for(slug, None).await
    }

    /// The snapshot for a visitor presenting a docs session (the cookie the
    /// docs login sets): password-protected projects open to a valid one.
    /// Never cache what this returns under the slug alone.
    pub async fn mock_snapshot_for(
        &self,
        slug: &str,
        docs_session: Option<&str>,
    ) -> HubResult<Result<MockSnapshot, MockClosed>> {
        let Some(project) = self.store.mock_project(slug).await? else {
            return Ok(Err(MockClosed::NotFound));
        };
        if !project.is_public {
            return Ok(Err(MockClosed::NotFound));
        }
        if project.has_password {
            let open = match docs_session {
                Some(session) => self.docs_session_opens(slug, session).await?,
                None => false,
            };
            if !open {
                return Ok(Err(MockClosed::PasswordProtected));
            }
        }
        let versions = self.store.mock_versions(&project.id, self.clock.now()).await?;
        let settings = self.read_settings(&project.id).await?;
        let overrides = self.store.mock_overrides(&project.id).await?;
        Ok(Ok(MockSnapshot { project_id: project.id, versions, settings, overrides }))
    }

    /// The document of a version, by its content hash.
    pub async fn mock_document(&self, sha256: &str) -> HubResult<bytes::Bytes> {
        self.blobs.get(sha256).await?.ok_or_else(|| HubError::Internal(format!("blob {sha256} is missing")))
    }

    /// Advances the sequential-example counter of (project, version, method,
    /// path) and returns the position to serve.
    pub async fn mock_sequence(&self, project_id: &str, version: &str, method: &str, path: &str) -> HubResult<u64> {
        self.store.next_mock_sequence(project_id, version, method, path).await
    }

    /// Appends request-log rows (the server batches them).
    pub async fn record_mock_requests(&self, entries: &[LogEntry]) -> HubResult<()> {
        self.store.append_mock_log(entries).await
    }

    /// Deletes request-log rows older than 14 days.
    pub async fn prune_mock_log(&self) -> HubResult<u64> {
        let cutoff = Timestamp::from_millis(self.clock.now().as_millis() - LOG_RETENTION_MS);
        self.store.prune_mock_log(cutoff).await
    }

    async fn read_settings(&self, project_id: &str) -> HubResult<mock::Settings> {
        match self.store.mock_settings(project_id).await? {
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| HubError::Internal(format!("mock settings of {project_id} are unreadable: {e}"))),
            None => Ok(mock::Settings::default()),
        }
    }

    // ---- management, behind the role gate ---------------------------------

    pub async fn get_mock_settings(&self, principal: &Principal, slug: &str) -> HubResult<mock::Settings> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        self.read_settings(&found.project.id).await
    }

    /// Replaces the settings with `patch` merged over the current ones.
    pub async fn update_mock_settings(
        &self,
        principal: &Principal,
        slug: &str,
        patch: &Value,
        source: Source,
    ) -> HubResult<mock::Settings> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let Value::Object(patch) = patch else {
            return Err(HubError::validation("body", "expected a JSON object of settings"));
        };
        let current = self.read_settings(&found.project.id).await?;
        let mut merged = serde_json::to_value(&current).map_err(|e| HubError::Internal(e.to_string()))?;
        if let Value::Object(map) = &mut merged {
            for (key, value) in patch {
                if !map.contains_key(key) {
                    return Err(HubError::InvalidField { field: key.clone(), message: "unknown setting".to_owned() });
                }
                map.insert(key.clone(), value.clone());
            }
        }
        overrides::integral_numbers_at(&mut merged, &["/latencyMinMs", "/latencyMaxMs", "/chaosStatus"]);
        let mut settings: mock::Settings = serde_json::from_value(merged)
            .map_err(|e| HubError::InvalidField { field: "body".to_owned(), message: e.to_string() })?;
        // A range whose maximum is below its minimum is the minimum, fixed:
        // setting only `latencyMinMs` above the current maximum means that.
        settings.latency_max_ms = settings.latency_max_ms.max(settings.latency_min_ms);
        settings.validate().map_err(invalid)?;
        let text = serde_json::to_string(&settings).map_err(|e| HubError::Internal(e.to_string()))?;
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::MockSettingsUpdated, "project", &found.project.id).project(&found.project.id),
        );
        self.store.put_mock_settings(&found.project.id, &text, self.clock.now(), audit.as_ref()).await?;
        self.mock_changed();
        Ok(settings)
    }

    pub async fn list_mock_overrides(&self, principal: &Principal, slug: &str) -> HubResult<Vec<StoredOverride>> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        self.store.mock_overrides(&found.project.id).await
    }

    pub async fn get_mock_override(&self, principal: &Principal, slug: &str, id: &str) -> HubResult<StoredOverride> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        self.store.mock_override(&found.project.id, id).await?.ok_or(HubError::not_found("override"))
    }

    pub async fn create_mock_override(
        &self,
        principal: &Principal,
        slug: &str,
        body: &Value,
        source: Source,
    ) -> HubResult<StoredOverride> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let mut body = body.clone();
        overrides::integral_numbers_at(&mut body, &overrides::OVERRIDE_INTEGERS);
        let spec: OverrideSpec = serde_json::from_value(body)
            .map_err(|e| HubError::InvalidField { field: "body".to_owned(), message: e.to_string() })?;
        spec.validate().map_err(invalid)?;
        self.insert_override(principal, &found, spec, AuditAction::MockOverrideCreated, source).await
    }

    /// Copies an override; the copy starts disabled.
    pub async fn duplicate_mock_override(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        source: Source,
    ) -> HubResult<StoredOverride> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let original = self.store.mock_override(&found.project.id, id).await?.ok_or(HubError::not_found("override"))?;
        let mut spec = original.spec;
        spec.enabled = false;
        if !spec.name.is_empty() {
            spec.name = format!("{} (copy)", spec.name).chars().take(200).collect();
        }
        self.insert_override(principal, &found, spec, AuditAction::MockOverrideCreated, source).await
    }

    async fn insert_override(
        &self,
        principal: &Principal,
        found: &crate::model::ProjectAccess,
        spec: OverrideSpec,
        action: AuditAction,
        source: Source,
    ) -> HubResult<StoredOverride> {
        let id = uuid::Uuid::now_v7().to_string();
        let text = serde_json::to_string(&spec).map_err(|e| HubError::Internal(e.to_string()))?;
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(action, "mock_override", &id).project(&found.project.id),
        );
        self.store
            .insert_mock_overrides(&found.project.id, &[(id.clone(), text)], false, self.clock.now(), audit.as_ref())
            .await?;
        self.mock_changed();
        Ok(StoredOverride { id, spec })
    }

    /// Replaces an override's fields with `patch` merged over them.
    pub async fn update_mock_override(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        patch: &Value,
        source: Source,
    ) -> HubResult<StoredOverride> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let current = self.store.mock_override(&found.project.id, id).await?.ok_or(HubError::not_found("override"))?;
        let Value::Object(patch) = patch else {
            return Err(HubError::validation("body", "expected a JSON object"));
        };
        let mut merged = serde_json::to_value(&current.spec).map_err(|e| HubError::Internal(e.to_string()))?;
        if let Value::Object(map) = &mut merged {
            for (key, value) in patch {
                map.insert(key.clone(), value.clone());
            }
        }
        overrides::integral_numbers_at(&mut merged, &overrides::OVERRIDE_INTEGERS);
        let spec: OverrideSpec = serde_json::from_value(merged)
            .map_err(|e| HubError::InvalidField { field: "body".to_owned(), message: e.to_string() })?;
        spec.validate().map_err(invalid)?;
        let text = serde_json::to_string(&spec).map_err(|e| HubError::Internal(e.to_string()))?;
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::MockOverrideUpdated, "mock_override", id).project(&found.project.id),
        );
        self.store.update_mock_override(&found.project.id, id, &text, self.clock.now(), audit.as_ref()).await?;
        self.mock_changed();
        Ok(StoredOverride { id: id.to_owned(), spec })
    }

    pub async fn delete_mock_override(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        source: Source,
    ) -> HubResult<()> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::MockOverrideDeleted, "mock_override", id).project(&found.project.id),
        );
        self.store.delete_mock_override(&found.project.id, id, audit.as_ref()).await?;
        self.mock_changed();
        Ok(())
    }

    /// The versioned export bundle (ids stripped).
    pub async fn export_mock_overrides(&self, principal: &Principal, slug: &str) -> HubResult<Value> {
        let rules: Vec<overrides::Override> =
            self.list_mock_overrides(principal, slug).await?.into_iter().map(Into::into).collect();
        Ok(overrides::export(&rules))
    }

    /// Imports a bundle: malformed entries are skipped and reported; the
    /// result must fit the 50 cap or nothing is imported.
    pub async fn import_mock_overrides(
        &self,
        principal: &Principal,
        slug: &str,
        bundle: &Value,
        mode: ImportMode,
        source: Source,
    ) -> HubResult<ImportReport> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let overrides::ImportBundle { valid, skipped, dropped_headers } =
            overrides::parse_bundle(bundle).map_err(invalid)?;
        let existing = match mode {
            ImportMode::Replace => 0,
            ImportMode::Merge => self.store.mock_overrides(&found.project.id).await?.len(),
        };
        if existing + valid.len() > overrides::MAX_OVERRIDES {
            return Err(HubError::MockOverrideLimit { limit: overrides::MAX_OVERRIDES });
        }
        let mut rows = Vec::with_capacity(valid.len());
        for spec in &valid {
            let text = serde_json::to_string(spec).map_err(|e| HubError::Internal(e.to_string()))?;
            rows.push((uuid::Uuid::now_v7().to_string(), text));
        }
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::MockOverridesImported, "project", &found.project.id)
                .project(&found.project.id)
                .meta("imported", valid.len())
                .meta("skipped", skipped.len())
                .meta("mode", if mode == ImportMode::Replace { "replace" } else { "merge" }),
        );
        self.store
            .insert_mock_overrides(
                &found.project.id,
                &rows,
                mode == ImportMode::Replace,
                self.clock.now(),
                audit.as_ref(),
            )
            .await?;
        self.mock_changed();
        Ok(ImportReport { imported: valid.len(), skipped, total: existing + valid.len(), dropped_headers })
    }

    /// The request log, newest first.
    pub async fn mock_requests(
        &self,
        principal: &Principal,
        slug: &str,
        limit: u32,
        before: Option<i64>,
    ) -> HubResult<Vec<LogEntry>> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        let limit = i64::from(limit.clamp(1, 500));
        self.store.mock_log(&found.project.id, limit, before).await
    }
}
