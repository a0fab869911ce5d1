//! Audit action codes and the rows they produce.
//!
//! Rows are written by the store in the same transaction as the mutation they
//! describe, and only for accounts whose plan keeps an audit log (Business).

use kernel::Timestamp;
use serde_json::{Map, Value, json};

use crate::model::{AuditEvent, Source};

/// Stable UPPER_SNAKE action codes. The seed names some; the rest follow the
/// same grammar (`<TARGET>_<PAST_PARTICIPLE>`). docs/api.md lists them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditAction {
    ProjectCreated,
    ProjectUpdated,
    ProjectVisibilityChanged,
    ProjectCustomDomainChanged,
    ProjectDeleted,
    SpecUploaded,
    SpecSynced,
    PreviewCreated,
    PreviewUpdated,
    PreviewExpired,
    VersionPromotedDefault,
    VersionDeactivated,
    VersionReactivated,
    VersionUpdated,
    VersionDeleted,
    TokenCreated,
    TokenRevoked,
    UploadTokenRotated,
    McpTokenRotated,
    MockSettingsUpdated,
    MockOverrideCreated,
    MockOverrideUpdated,
    MockOverrideDeleted,
    MockOverridesImported,
    BrandingUpdated,
    ThemeUpdated,
    CustomizationUpdated,
    PasswordChanged,
    SessionsRevoked,
    PlanChangeRequested,
}

impl AuditAction {
    pub const fn code(self) -> &'static str {
        match self {
            Self::ProjectCreated => "PROJECT_CREATED",
            Self::ProjectUpdated => "PROJECT_UPDATED",
            Self::ProjectVisibilityChanged => "PROJECT_VISIBILITY_CHANGED",
            Self::ProjectCustomDomainChanged => "PROJECT_CUSTOM_DOMAIN_CHANGED",
            Self::ProjectDeleted => "PROJECT_DELETED",
            Self::SpecUploaded => "SPEC_UPLOADED",
            Self::SpecSynced => "SPEC_SYNCED",
            Self::PreviewCreated => "PREVIEW_CREATED",
            Self::PreviewUpdated => "PREVIEW_UPDATED",
            Self::PreviewExpired => "PREVIEW_EXPIRED",
            Self::VersionPromotedDefault => "VERSION_PROMOTED_DEFAULT",
            Self::VersionDeactivated => "VERSION_DEACTIVATED",
            Self::VersionReactivated => "VERSION_REACTIVATED",
            Self::VersionUpdated => "VERSION_UPDATED",
            Self::VersionDeleted => "VERSION_DELETED",
            Self::TokenCreated => "TOKEN_CREATED",
            Self::TokenRevoked => "TOKEN_REVOKED",
            Self::UploadTokenRotated => "UPLOAD_TOKEN_ROTATED",
            Self::McpTokenRotated => "MCP_TOKEN_ROTATED",
            Self::MockSettingsUpdated => "MOCK_SETTINGS_UPDATED",
            Self::MockOverrideCreated => "MOCK_OVERRIDE_CREATED",
            Self::MockOverrideUpdated => "MOCK_OVERRIDE_UPDATED",
            Self::MockOverrideDeleted => "MOCK_OVERRIDE_DELETED",
            Self::MockOverridesImported => "MOCK_OVERRIDES_IMPORTED",
            Self::BrandingUpdated => "BRANDING_UPDATED",
            Self::ThemeUpdated => "THEME_UPDATED",
            Self::CustomizationUpdated => "CUSTOMIZATION_UPDATED",
            Self::PasswordChanged => "PASSWORD_CHANGED",
            Self::SessionsRevoked => "SESSIONS_REVOKED",
            Self::PlanChangeRequested => "PLAN_CHANGE_REQUESTED",
        }
    }
}

/// What a mutation wants recorded; the store turns it into a row when the
/// account's plan keeps an audit log.
#[derive(Clone, Debug)]
pub struct AuditDraft {
    pub action: AuditAction,
    pub target_type: &'static str,
    pub target_id: String,
    pub project_id: Option<String>,
    pub metadata: Map<String, Value>,
}

impl AuditDraft {
    pub fn new(action: AuditAction, target_type: &'static str, target_id: impl Into<String>) -> Self {
        Self { action, target_type, target_id: target_id.into(), project_id: None, metadata: Map::new() }
    }

    #[must_use]
    pub fn project(mut self, project_id: impl Into<String>) -> Self {
        self.project_id = Some(project_id.into());
        self
    }

    #[must_use]
    pub fn meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The row, with a fresh UUID (also the webhook delivery id).
    pub fn into_event(self, account_user_id: &str, actor_user_id: &str, source: Source, at: Timestamp) -> AuditEvent {
        let mut metadata = self.metadata;
        metadata.insert("source".to_owned(), json!(source.as_str()));
        AuditEvent {
            id: uuid::Uuid::now_v7().to_string(),
            account_user_id: account_user_id.to_owned(),
            actor_user_id: actor_user_id.to_owned(),
            action: self.action.code().to_owned(),
            target_type: self.target_type.to_owned(),
            target_id: self.target_id,
            project_id: self.project_id,
            metadata: Value::Object(metadata),
            created_at: at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_carry_source_and_a_uuid() {
        let event = AuditDraft::new(AuditAction::ProjectCreated, "project", "p1")
            .project("p1")
            .meta("slug", "petstore")
            .into_event("owner", "actor", Source::Api, Timestamp::from_millis(5));
        assert_eq!(event.action, "PROJECT_CREATED");
        assert_eq!(event.metadata["source"], "api");
        assert_eq!(event.metadata["slug"], "petstore");
        assert!(uuid::Uuid::parse_str(&event.id).is_ok());
    }
}
