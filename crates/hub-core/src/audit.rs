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
    PlanChanged,
    CollaboratorInvited,
    CollaboratorJoined,
    CollaboratorInvitationDeclined,
    CollaboratorRoleChanged,
    CollaboratorRemoved,
    CollaboratorLeft,
    AuditSettingsUpdated,
    AuditWebhookTested,
    SignedIn,
    ProfileUpdated,
    MonitorEnabled,
    MonitorDisabled,
    MonitorUpdated,
    MonitorCredentialSet,
    MonitorCredentialCleared,
    InboxCreated,
    InboxUpdated,
    InboxDeleted,
    InboxCleared,
    InboxCaptureDeleted,
    EnvironmentCreated,
    EnvironmentUpdated,
    EnvironmentDeleted,
    EnvironmentSecretsExported,
    RequestCreated,
    RequestUpdated,
    RequestDeleted,
    RequestsImported,
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
            Self::PlanChanged => "PLAN_CHANGED",
            Self::CollaboratorInvited => "COLLABORATOR_INVITED",
            Self::CollaboratorJoined => "COLLABORATOR_JOINED",
            Self::CollaboratorInvitationDeclined => "COLLABORATOR_INVITATION_DECLINED",
            Self::CollaboratorRoleChanged => "COLLABORATOR_ROLE_CHANGED",
            Self::CollaboratorRemoved => "COLLABORATOR_REMOVED",
            Self::CollaboratorLeft => "COLLABORATOR_LEFT",
            Self::AuditSettingsUpdated => "AUDIT_SETTINGS_UPDATED",
            Self::AuditWebhookTested => "AUDIT_WEBHOOK_TESTED",
            Self::SignedIn => "SIGNED_IN",
            Self::ProfileUpdated => "PROFILE_UPDATED",
            Self::MonitorEnabled => "MONITOR_ENABLED",
            Self::MonitorDisabled => "MONITOR_DISABLED",
            Self::MonitorUpdated => "MONITOR_UPDATED",
            Self::MonitorCredentialSet => "MONITOR_CREDENTIAL_SET",
            Self::MonitorCredentialCleared => "MONITOR_CREDENTIAL_CLEARED",
            Self::InboxCreated => "INBOX_CREATED",
            Self::InboxUpdated => "INBOX_UPDATED",
            Self::InboxDeleted => "INBOX_DELETED",
            Self::InboxCleared => "INBOX_CLEARED",
            Self::InboxCaptureDeleted => "INBOX_CAPTURE_DELETED",
            Self::EnvironmentCreated => "ENVIRONMENT_CREATED",
            Self::EnvironmentUpdated => "ENVIRONMENT_UPDATED",
            Self::EnvironmentDeleted => "ENVIRONMENT_DELETED",
            Self::EnvironmentSecretsExported => "ENVIRONMENT_SECRETS_EXPORTED",
            Self::RequestCreated => "REQUEST_CREATED",
            Self::RequestUpdated => "REQUEST_UPDATED",
            Self::RequestDeleted => "REQUEST_DELETED",
            Self::RequestsImported => "REQUESTS_IMPORTED",
        }
    }

    /// The viewer's filter group of this code.
    pub const fn category(self) -> Category {
        match self {
            Self::ProjectCreated
            | Self::ProjectUpdated
            | Self::ProjectVisibilityChanged
            | Self::ProjectCustomDomainChanged
            | Self::ProjectDeleted => Category::Projects,
            Self::SpecUploaded | Self::SpecSynced => Category::Specs,
            Self::PreviewCreated
            | Self::PreviewUpdated
            | Self::PreviewExpired
            | Self::VersionPromotedDefault
            | Self::VersionDeactivated
            | Self::VersionReactivated
            | Self::VersionUpdated
            | Self::VersionDeleted => Category::Versions,
            Self::TokenCreated | Self::TokenRevoked | Self::UploadTokenRotated | Self::McpTokenRotated => {
                Category::Tokens
            }
            Self::MockSettingsUpdated
            | Self::MockOverrideCreated
            | Self::MockOverrideUpdated
            | Self::MockOverrideDeleted
            | Self::MockOverridesImported => Category::Mock,
            Self::BrandingUpdated | Self::ThemeUpdated | Self::CustomizationUpdated => Category::Docs,
            Self::CollaboratorInvited
            | Self::CollaboratorJoined
            | Self::CollaboratorInvitationDeclined
            | Self::CollaboratorRoleChanged
            | Self::CollaboratorRemoved
            | Self::CollaboratorLeft => Category::Collaborators,
            Self::PasswordChanged
            | Self::SessionsRevoked
            | Self::PlanChangeRequested
            | Self::PlanChanged
            | Self::SignedIn
            | Self::ProfileUpdated
            | Self::AuditSettingsUpdated
            | Self::AuditWebhookTested => Category::Account,
            Self::MonitorEnabled
            | Self::MonitorDisabled
            | Self::MonitorUpdated
            | Self::MonitorCredentialSet
            | Self::MonitorCredentialCleared => Category::Monitoring,
            Self::InboxCreated
            | Self::InboxUpdated
            | Self::InboxDeleted
            | Self::InboxCleared
            | Self::InboxCaptureDeleted => Category::Inboxes,
            Self::EnvironmentCreated
            | Self::EnvironmentUpdated
            | Self::EnvironmentDeleted
            | Self::EnvironmentSecretsExported
            | Self::RequestCreated
            | Self::RequestUpdated
            | Self::RequestDeleted
            | Self::RequestsImported => Category::Requests,
        }
    }
}

/// Every code, in the order docs/api.md lists them.
pub const ALL_ACTIONS: [AuditAction; 59] = [
    AuditAction::ProjectCreated,
    AuditAction::ProjectUpdated,
    AuditAction::ProjectVisibilityChanged,
    AuditAction::ProjectCustomDomainChanged,
    AuditAction::ProjectDeleted,
    AuditAction::SpecUploaded,
    AuditAction::SpecSynced,
    AuditAction::PreviewCreated,
    AuditAction::PreviewUpdated,
    AuditAction::PreviewExpired,
    AuditAction::VersionPromotedDefault,
    AuditAction::VersionDeactivated,
    AuditAction::VersionReactivated,
    AuditAction::VersionUpdated,
    AuditAction::VersionDeleted,
    AuditAction::TokenCreated,
    AuditAction::TokenRevoked,
    AuditAction::UploadTokenRotated,
    AuditAction::McpTokenRotated,
    AuditAction::MockSettingsUpdated,
    AuditAction::MockOverrideCreated,
    AuditAction::MockOverrideUpdated,
    AuditAction::MockOverrideDeleted,
    AuditAction::MockOverridesImported,
    AuditAction::BrandingUpdated,
    AuditAction::ThemeUpdated,
    AuditAction::CustomizationUpdated,
    AuditAction::PasswordChanged,
    AuditAction::SessionsRevoked,
    AuditAction::PlanChangeRequested,
    AuditAction::PlanChanged,
    AuditAction::SignedIn,
    AuditAction::ProfileUpdated,
    AuditAction::CollaboratorInvited,
    AuditAction::CollaboratorJoined,
    AuditAction::CollaboratorInvitationDeclined,
    AuditAction::CollaboratorRoleChanged,
    AuditAction::CollaboratorRemoved,
    AuditAction::CollaboratorLeft,
    AuditAction::AuditSettingsUpdated,
    AuditAction::AuditWebhookTested,
    AuditAction::MonitorEnabled,
    AuditAction::MonitorDisabled,
    AuditAction::MonitorUpdated,
    AuditAction::MonitorCredentialSet,
    AuditAction::MonitorCredentialCleared,
    AuditAction::InboxCreated,
    AuditAction::InboxUpdated,
    AuditAction::InboxDeleted,
    AuditAction::InboxCleared,
    AuditAction::InboxCaptureDeleted,
    AuditAction::EnvironmentCreated,
    AuditAction::EnvironmentUpdated,
    AuditAction::EnvironmentDeleted,
    AuditAction::EnvironmentSecretsExported,
    AuditAction::RequestCreated,
    AuditAction::RequestUpdated,
    AuditAction::RequestDeleted,
    AuditAction::RequestsImported,
];

/// The viewer's groups of codes (the seed's "action category" filter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Projects,
    Versions,
    Specs,
    Tokens,
    Collaborators,
    Mock,
    Docs,
    Account,
    Monitoring,
    Inboxes,
    Requests,
}

impl Category {
    pub const ALL: [Self; 11] = [
        Self::Projects,
        Self::Versions,
        Self::Specs,
        Self::Tokens,
        Self::Collaborators,
        Self::Mock,
        Self::Docs,
        Self::Account,
        Self::Monitoring,
        Self::Inboxes,
        Self::Requests,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Projects => "projects",
            Self::Versions => "versions",
            Self::Specs => "specs",
            Self::Tokens => "tokens",
            Self::Collaborators => "collaborators",
            Self::Mock => "mock",
            Self::Docs => "docs",
            Self::Account => "account",
            Self::Monitoring => "monitoring",
            Self::Inboxes => "inboxes",
            Self::Requests => "requests",
        }
    }

    /// The codes of this group.
    pub fn codes(self) -> Vec<&'static str> {
        ALL_ACTIONS.iter().filter(|a| a.category() == self).map(|a| a.code()).collect()
    }
}

impl std::str::FromStr for Category {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|c| c.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|c| c.as_str()).collect();
            format!("category is one of {}", names.join(", "))
        })
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
    fn codes_are_unique_upper_snake_and_grouped() {
        let mut seen = std::collections::HashSet::new();
        for action in ALL_ACTIONS {
            let code = action.code();
            assert!(seen.insert(code), "{code} twice");
            assert!(code.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{code}");
        }
        assert!(ALL_ACTIONS.len() > 30);
        let grouped: usize = Category::ALL.iter().map(|c| c.codes().len()).sum();
        assert_eq!(grouped, ALL_ACTIONS.len());
        assert!(Category::Collaborators.codes().contains(&"COLLABORATOR_ROLE_CHANGED"));
        assert!("nonsense".parse::<Category>().unwrap_err().contains("collaborators"));
    }

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
