//! Domain types returned by the use cases. They are not wire types:
//! `courses-http` decides how each is serialised.

use kernel::Timestamp;
use serde_json::{Map, Value};

use crate::plans::Plan;

#[derive(Clone, Debug, PartialEq)]
pub struct Workspace {
    pub id: String,
    pub name: String,
    pub plan: Plan,
    pub payment_failed_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A workspace as an operator sees it in a list: its plan and standing,
/// with how many active API keys and courses it has.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkspaceSummary {
    pub workspace: Workspace,
    /// Keys not revoked.
    pub active_keys: u64,
    pub read_only_keys: u64,
    pub courses: u64,
    /// People with a role in the workspace (the studio's members).
    pub members: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKeyInfo {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub display: String,
    pub read_only: bool,
    pub revoked_at: Option<Timestamp>,
    pub last_used_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// An authenticated, rate-checked caller in good standing.
#[derive(Clone, Debug)]
pub struct Access {
    pub workspace: Workspace,
    pub key_id: String,
    pub read_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CourseStatus {
    Draft,
    Published,
}

impl CourseStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Published => "published",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "draft" => Some(Self::Draft),
            "published" => Some(Self::Published),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Course {
    pub id: String,
    pub workspace_id: String,
    pub title: String,
    pub status: CourseStatus,
    pub passing_score: Option<i64>,
    pub theme_id: Option<String>,
    pub certificate_id: Option<String>,
    pub source_kind: String,
    /// `navigation`, `quizFeedback`, `direction`, `retry`, `description`.
    pub settings: Map<String, Value>,
    pub screens: Vec<Value>,
    /// Unknown fields of the request bodies, stored without effect.
    pub extra: Map<String, Value>,
    pub published_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Course {
    /// Whether a learner may take the course again after a completion
    /// (the `retry` setting; a course saved before it existed allows it).
    pub fn allows_retry(&self) -> bool {
        self.settings.get("retry").and_then(Value::as_str) != Some("never")
    }
}

/// Resource kinds stored as JSON documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    Theme,
    CertificateTemplate,
    Translation,
    Collection,
    Webhook,
}

impl ResourceKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Theme => "theme",
            Self::CertificateTemplate => "certificate_template",
            Self::Translation => "translation",
            Self::Collection => "collection",
            Self::Webhook => "webhook",
        }
    }

    pub const fn id_prefix(self) -> &'static str {
        match self {
            Self::Theme => "thm",
            Self::CertificateTemplate => "ctp",
            Self::Translation => "trn",
            Self::Collection => "col",
            Self::Webhook => "whk",
        }
    }

    /// The name used in `not found` messages.
    pub const fn noun(self) -> &'static str {
        match self {
            Self::Theme => "theme",
            Self::CertificateTemplate => "certificate template",
            Self::Translation => "translation",
            Self::Collection => "collection",
            Self::Webhook => "webhook",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub id: String,
    pub workspace_id: String,
    pub kind: ResourceKind,
    pub data: Map<String, Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    pub id: String,
    pub workspace_id: String,
    pub external_id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub extra: Map<String, Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub id: String,
    pub workspace_id: String,
    pub course_id: String,
    pub identity_id: String,
    /// Null when the course has no scored blocks; null is not zero.
    pub score: Option<f64>,
    pub passed: bool,
    /// What each SCO of an imported SCORM course reported (block id to its
    /// completion and success status, score, location and suspend data).
    pub scorm: Option<Map<String, Value>>,
    pub created_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IssuedCertificate {
    pub id: String,
    pub workspace_id: String,
    pub course_id: String,
    pub identity_id: String,
    pub completion_id: String,
    pub template_id: Option<String>,
    pub learner_name: String,
    pub course_title: String,
    pub score: Option<f64>,
    pub issued_at: Timestamp,
}

/// One month of metered usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    pub month: String,
    pub plan: Plan,
    pub course_views: u64,
    pub course_views_allowance: u64,
    /// Views beyond the allowance on a metered (paid) plan, to be charged.
    pub course_views_overage: u64,
    pub generations: u64,
    pub generations_allowance: Option<u64>,
}

/// One page of a list being streamed from the store.
pub enum ListItem<T> {
    Item(T),
    End { has_more: bool },
    Failed(kernel::StoreError),
}
