//! Domain records the use cases return. They are not wire types: `hub-http`
//! decides what each response shows (and never shows secrets).

use kernel::Timestamp;

use crate::plans::Plan;
use crate::roles::Access;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub email: String,
    pub plan: Plan,
    pub created_at: Timestamp,
}

/// The authenticated caller of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub user_id: String,
    pub email: String,
    pub plan: Plan,
    pub token_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Project {
    pub id: String,
    pub owner_id: String,
    pub slug: String,
    pub name: String,
    pub is_public: bool,
    pub base_url: Option<String>,
    pub custom_domain: Option<String>,
    pub has_password: bool,
    pub branding: serde_json::Value,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A project together with what the caller may do with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectAccess {
    pub project: Project,
    pub owner_plan: Plan,
    pub access: Access,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub id: String,
    pub project_id: String,
    pub label: String,
    pub spec_format: String,
    pub spec_sha256: String,
    /// Bytes of the document as pushed.
    pub spec_size: i64,
    pub title: String,
    pub api_version: String,
    pub operation_count: i64,
    pub is_default: bool,
    pub is_active: bool,
    pub base_url: Option<String>,
    pub is_preview: bool,
    pub pr_number: Option<i64>,
    pub commit_sha: Option<String>,
    pub branch: Option<String>,
    pub expires_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    pub id: String,
    pub user_id: String,
    pub name: String,
    /// The first characters of the token, safe to show in lists.
    pub display: String,
    pub expires_at: Option<Timestamp>,
    pub last_used_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// Where a mutation came from, recorded as `metadata.source` on audit rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Dashboard,
    Api,
    System,
}

impl Source {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Dashboard => "dashboard",
            Self::Api => "api",
            Self::System => "system",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AuditEvent {
    pub id: String,
    pub account_user_id: String,
    pub actor_user_id: String,
    pub action: String,
    pub target_type: String,
    pub target_id: String,
    pub project_id: Option<String>,
    pub metadata: serde_json::Value,
    pub created_at: Timestamp,
}
