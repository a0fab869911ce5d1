//! The JSON shapes of the management API. Domain records never serialise
//! themselves; these types decide what a response shows, and secrets
//! (`password_hash`, `mcp_token`, `upload_token`) have no field here at all.

use hub_core::{Project, Version};
use kernel::{Page, Timestamp};
use serde::Serialize;

#[derive(Serialize)]
pub struct ProjectBody {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub is_public: bool,
    pub base_url: Option<String>,
    pub custom_domain: Option<String>,
    pub password_protected: bool,
    pub branding: serde_json::Value,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Project> for ProjectBody {
    fn from(p: Project) -> Self {
        Self {
            id: p.id,
            slug: p.slug,
            name: p.name,
            is_public: p.is_public,
            base_url: p.base_url,
            custom_domain: p.custom_domain,
            password_protected: p.has_password,
            branding: p.branding,
            created_at: p.created_at.to_rfc3339(),
            updated_at: p.updated_at.to_rfc3339(),
        }
    }
}

#[derive(Serialize)]
pub struct VersionBody {
    pub id: String,
    pub project_id: String,
    pub version_label: String,
    pub spec_format: String,
    pub is_default: bool,
    pub is_active: bool,
    /// Bytes of the document as pushed.
    pub spec_size: i64,
    pub spec_sha256: String,
    pub title: String,
    pub api_version: String,
    pub operation_count: i64,
    pub base_url: Option<String>,
    pub is_preview: bool,
    pub pr_number: Option<i64>,
    pub commit_sha: Option<String>,
    pub branch: Option<String>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Version> for VersionBody {
    fn from(v: Version) -> Self {
        Self {
            id: v.id,
            project_id: v.project_id,
            version_label: v.label,
            spec_format: v.spec_format,
            is_default: v.is_default,
            is_active: v.is_active,
            spec_size: v.spec_size,
            spec_sha256: v.spec_sha256,
            title: v.title,
            api_version: v.api_version,
            operation_count: v.operation_count,
            base_url: v.base_url,
            is_preview: v.is_preview,
            pr_number: v.pr_number,
            commit_sha: v.commit_sha,
            branch: v.branch,
            expires_at: v.expires_at.map(Timestamp::to_rfc3339),
            created_at: v.created_at.to_rfc3339(),
            updated_at: v.updated_at.to_rfc3339(),
        }
    }
}

#[derive(Serialize)]
pub struct Pagination {
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
}

/// `{ data: [...], pagination: { total, limit, offset } }`.
#[derive(Serialize)]
pub struct ListBody<T> {
    pub data: Vec<T>,
    pub pagination: Pagination,
}

impl<T> ListBody<T> {
    pub fn from_page<D>(page: Page<D>) -> Self
    where
        T: From<D>,
    {
        let request = page.request;
        Self {
            data: page.items.into_iter().map(T::from).collect(),
            pagination: Pagination { total: page.total, limit: request.limit(), offset: request.offset() },
        }
    }
}

/// A collaborator or a pending invitation.
#[derive(Debug, Serialize)]
pub struct CollaboratorBody {
    pub id: String,
    pub email: String,
    pub role: &'static str,
    pub status: &'static str,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

impl From<hub_core::team::Collaborator> for CollaboratorBody {
    fn from(c: hub_core::team::Collaborator) -> Self {
        Self {
            id: c.id,
            email: c.email,
            role: c.role.as_str(),
            status: c.status.as_str(),
            created_at: c.created_at.to_rfc3339(),
            expires_at: c.expires_at.map(Timestamp::to_rfc3339),
        }
    }
}
