//! Who may use a project's MCP server (`/api/mcp/<slug>`), and the
//! project's MCP token.
//!
//! A public project without a docs password is open to every assistant, as
//! its docs are. Any other project answers only to its MCP token (`svc_mcp_`,
//! minted on rotation, shown once, stored as a SHA-256 on the project row and
//! never part of a project response) or to the personal access token of
//! someone the role gate lets view it. Without a credential the answer is
//! 401; with another project's token, or a personal token that cannot see
//! the project, it is 404, exactly like a missing project.

use kernel::Secret;
use platform::crypto::constant_time_eq;

use crate::Hub;
use crate::Plan;
use crate::audit::{AuditAction, AuditDraft};
use crate::docs::DocsVersion;
use crate::error::{HubError, HubResult, TokenRejection};
use crate::model::{Principal, Source};
use crate::plans::{Feature, fixed};
use crate::roles::Action;
use crate::tokens::{hash_mcp_bearer, mint_mcp_token};

/// A caller admitted to one project's MCP server.
#[derive(Clone, Debug)]
pub struct McpAccess {
    pub project_id: String,
    /// The account whose plan and quotas the project uses.
    pub owner_id: String,
    pub slug: String,
    pub name: String,
    pub owner_plan: Plan,
    pub is_public: bool,
    /// The project's base URL, where `call_endpoint` sends requests.
    pub base_url: Option<String>,
    /// The member behind a personal access token; `None` for the project's
    /// MCP token and for anonymous callers of a public project.
    pub principal: Option<Principal>,
}

impl Hub {
    /// Mints a new MCP token for the project, replacing the previous one
    /// (editors and owners), audited as `MCP_TOKEN_ROTATED`.
    pub async fn rotate_mcp_token(
        &self,
        principal: &Principal,
        slug: &str,
        source: Source,
    ) -> HubResult<Secret<String>> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let minted = mint_mcp_token();
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::McpTokenRotated, "project", &found.project.id)
                .project(&found.project.id)
                .meta("display", minted.display.as_str()),
        );
        self.store.set_mcp_token_hash(&found.project.id, &minted.hash, self.clock.now(), audit.as_ref()).await?;
        Ok(minted.plaintext)
    }

    /// The versions an admitted caller may ask about (previews included,
    /// expired ones not), the default first.
    pub async fn mcp_versions(&self, access: &McpAccess) -> HubResult<Vec<DocsVersion>> {
        let mut versions = self.store.docs_versions(&access.project_id, self.clock.now()).await?;
        versions.sort_by_key(|v| !v.is_default);
        Ok(versions)
    }

    /// Decides whether the bearer of `authorization` may use the MCP server
    /// of project `slug` (see the module's rules).
    pub async fn mcp_access(&self, slug: &str, authorization: Option<&str>) -> HubResult<McpAccess> {
        let Some(row) = self.store.docs_project(slug).await? else { return Err(HubError::not_found("project")) };
        let owner_plan: Plan = row.owner_plan.parse().unwrap_or(Plan::Free);
        let mut access = McpAccess {
            project_id: row.id.clone(),
            owner_id: row.owner_id.clone(),
            slug: row.slug.clone(),
            name: row.name.clone(),
            owner_plan,
            is_public: row.is_public && row.password_hash.is_none(),
            base_url: row.base_url.clone(),
            principal: None,
        };
        let authorization = authorization.map(str::trim).filter(|a| !a.is_empty());
        let Some(authorization) = authorization else {
            return if access.is_public { Ok(access) } else { Err(HubError::InvalidToken(TokenRejection::Missing)) };
        };
        if let Some(presented) = hash_mcp_bearer(authorization) {
            let stored = self.store.mcp_token_hash(&row.id).await?;
            if stored.is_some_and(|hash| constant_time_eq(hash.as_bytes(), presented.as_bytes())) {
                return Ok(access);
            }
            // Another project's token names a project this caller cannot
            // see here: answered as missing. An unknown token is a bad
            // credential.
            return if self.store.mcp_token_exists(&presented).await? {
                Err(HubError::not_found("project"))
            } else {
                Err(HubError::InvalidToken(TokenRejection::Unknown))
            };
        }
        let principal = self.authenticate(Some(authorization)).await?;
        self.authorize_project(&principal, slug, Action::ViewProject).await?;
        access.principal = Some(principal);
        Ok(access)
    }
}

/// What an MCP tool call spends beyond the per-project call budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpMetered {
    /// Any tool call: `MCP_CALLS_PER_MINUTE` per project.
    Call,
    /// `diff_versions`: the diff feature and the diff route's budget.
    Diff,
    /// `call_endpoint`: live calls (Pro and up), `MCP_LIVE_CALLS_PER_MINUTE`.
    LiveCall,
}

impl Hub {
    /// Checks the plan gate and counts the budget of one MCP tool call.
    pub async fn mcp_meter(&self, access: &McpAccess, what: McpMetered) -> HubResult<()> {
        let (feature, route, limit) = match what {
            McpMetered::Call => (None, "mcp", fixed::MCP_CALLS_PER_MINUTE),
            McpMetered::Diff => (Some(Feature::Diffs), "diff", fixed::SDK_DIFF_REQUESTS_PER_MINUTE),
            McpMetered::LiveCall => (Some(Feature::McpLiveCalls), "mcp-live", fixed::MCP_LIVE_CALLS_PER_MINUTE),
        };
        if let Some(feature) = feature
            && !access.owner_plan.allows(feature)
        {
            return Err(HubError::PlanRequired { feature, current: access.owner_plan });
        }
        self.limit_per_project(&access.project_id, route, limit).await
    }
}
