//! Project use cases: list, create, read, update, delete.

use kernel::{Page, PageRequest};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, Project, ProjectAccess, Source};
use crate::names::{Domain, HttpUrl, ProjectName, Slug};
use crate::plans::Feature;
use crate::read_cache::CallerProject;
use crate::roles::{Action, Denial, authorize};
use crate::store::{NewProject, ProjectChanges};
use crate::tokens::hash_bearer;

/// Input of project creation.
#[derive(Clone, Debug, Default)]
pub struct CreateProject {
    pub name: String,
    pub slug: Option<String>,
    pub is_public: Option<bool>,
    pub base_url: Option<String>,
}

/// A sparse project update: `None` leaves a field alone; `Some(None)` clears
/// a nullable field.
#[derive(Clone, Debug, Default)]
pub struct ProjectPatch {
    pub name: Option<String>,
    pub is_public: Option<bool>,
    pub base_url: Option<Option<String>>,
    pub custom_domain: Option<Option<String>>,
}

const SLUG_ATTEMPTS: u32 = 5;

/// Applies the role gate to a resolved project: absent and hidden answer alike.
fn gate(found: ProjectAccess, action: Action) -> HubResult<ProjectAccess> {
    match authorize(found.access, action) {
        Ok(()) => Ok(found),
        Err(Denial::Hidden) => Err(HubError::not_found("project")),
        Err(Denial::Forbidden { access, action }) => Err(HubError::Forbidden { access, action }),
    }
}

impl Hub {
    /// The one gate: the project named `slug` if the caller may perform
    /// `action` on it. Absent and inaccessible projects are both `NotFound`.
    pub async fn authorize_project(
        &self,
        principal: &Principal,
        slug: &str,
        action: Action,
    ) -> HubResult<ProjectAccess> {
        let Ok(slug) = Slug::parse(slug) else { return Err(HubError::not_found("project")) };
        let found = self
            .store
            .project_access(slug.as_str(), &principal.user_id)
            .await?
            .ok_or(HubError::not_found("project"))?;
        gate(found, action)
    }

    /// Authenticates a bearer token and authorises `action` on the project
    /// `slug` in one database round trip when both exist (the hot path of
    /// project reads); answers exactly like `authenticate` followed by
    /// `authorize_project` otherwise.
    pub async fn authorize_token_for_project(
        &self,
        authorization: Option<&str>,
        slug: &str,
        action: Action,
    ) -> HubResult<(Principal, ProjectAccess)> {
        let hash = hash_bearer(authorization).map_err(HubError::InvalidToken)?;
        let found = match Slug::parse(slug) {
            Ok(slug) => self.caller_and_project(&hash, slug.as_str()).await?,
            Err(_) => None,
        };
        match found {
            Some(CallerProject { principal, expires_at, last_used_at, access }) => {
                self.accept_token(&principal, expires_at, last_used_at).await?;
                Ok((principal, gate(access, action)?))
            }
            None => {
                let principal = self.authenticate(authorization).await?;
                let access = self.authorize_project(&principal, slug, action).await?;
                Ok((principal, access))
            }
        }
    }

    pub async fn list_projects(
        &self,
        principal: &Principal,
        query: Option<&str>,
        page: PageRequest,
    ) -> HubResult<Page<Project>> {
        let query = query.map(str::trim).filter(|q| !q.is_empty());
        self.store.list_projects(&principal.user_id, query, page).await
    }

    /// A project with the caller's access to it (pages show only the
    /// controls the access allows; every action is still gated).
    pub async fn project_access(&self, principal: &Principal, slug: &str) -> HubResult<ProjectAccess> {
        self.authorize_project(principal, slug, Action::ViewProject).await
    }

    pub async fn project(&self, principal: &Principal, slug: &str) -> HubResult<Project> {
        Ok(self.authorize_project(principal, slug, Action::ViewProject).await?.project)
    }

    /// Creates a project owned by the caller, within their plan's project cap.
    pub async fn create_project(
        &self,
        principal: &Principal,
        input: CreateProject,
        source: Source,
    ) -> HubResult<Project> {
        let name = ProjectName::parse(&input.name)?;
        let base_url = input.base_url.as_deref().map(|u| HttpUrl::parse("base_url", u)).transpose()?;
        let explicit_slug = input.slug.as_deref().map(Slug::parse).transpose()?;
        let max_projects = principal.plan.limits().max_projects;
        let now = self.clock.now();
        for _ in 0..SLUG_ATTEMPTS {
            let slug = match &explicit_slug {
                Some(slug) => slug.clone(),
                None => self.free_slug(&Slug::from_name(name.as_str())).await?,
            };
            let project = Project {
                id: uuid::Uuid::now_v7().to_string(),
                owner_id: principal.user_id.clone(),
                slug: slug.as_str().to_owned(),
                name: name.as_str().to_owned(),
                is_public: input.is_public.unwrap_or(false),
                base_url: base_url.as_ref().map(|u| u.as_str().to_owned()),
                custom_domain: None,
                has_password: false,
                branding: serde_json::json!({}),
                created_at: now,
                updated_at: now,
            };
            let audit = self.audit_row(
                &principal.user_id,
                principal.plan,
                &principal.user_id,
                source,
                AuditDraft::new(AuditAction::ProjectCreated, "project", &project.id)
                    .project(&project.id)
                    .meta("slug", project.slug.as_str())
                    .meta("name", project.name.as_str()),
            );
            let result = self
                .store
                .insert_project(NewProject {
                    project: &project,
                    owner_plan: principal.plan,
                    max_projects,
                    audit: audit.as_ref(),
                })
                .await;
            match result {
                Ok(()) => return Ok(project),
                // A generated slug lost a race with another creation: pick again.
                Err(HubError::Conflict { .. }) if explicit_slug.is_none() => {}
                Err(err) => return Err(err),
            }
        }
        Err(HubError::conflict("could not allocate a unique slug; pass one explicitly"))
    }

    /// The hot query, answered from the read cache while the SQLite database
    /// is unchanged (see `read_cache`).
    async fn caller_and_project(&self, token_hash: &str, slug: &str) -> HubResult<Option<CallerProject>> {
        let stamp = self.read_cache.as_ref().and_then(|cache| cache.stamp().map(|stamp| (cache, stamp)));
        if let Some((cache, stamp)) = &stamp
            && let Some(hit) = cache.get(token_hash, slug, stamp)
        {
            return Ok(Some(hit));
        }
        let found = self.store.caller_and_project(token_hash, slug).await?.map(
            |(principal, expires_at, last_used_at, access)| CallerProject {
                principal,
                expires_at,
                last_used_at,
                access,
            },
        );
        if let (Some((cache, stamp)), Some(value)) = (stamp, &found) {
            cache.put(token_hash, slug, stamp, value.clone());
        }
        Ok(found)
    }

    /// `base` if free, else the first free `base-N` (N from 2).
    async fn free_slug(&self, base: &Slug) -> HubResult<Slug> {
        let taken = self.store.slugs_like(base.as_str()).await?;
        if !taken.iter().any(|s| s == base.as_str()) {
            return Ok(base.clone());
        }
        let mut n = 2;
        loop {
            let candidate = base.with_suffix(n);
            if !taken.iter().any(|s| s == candidate.as_str()) {
                return Ok(candidate);
            }
            n += 1;
        }
    }

    pub async fn update_project(
        &self,
        principal: &Principal,
        slug: &str,
        patch: ProjectPatch,
        source: Source,
    ) -> HubResult<Project> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let name = patch.name.as_deref().map(ProjectName::parse).transpose()?;
        let base_url = match &patch.base_url {
            Some(Some(url)) => Some(Some(HttpUrl::parse("base_url", url)?)),
            Some(None) => Some(None),
            None => None,
        };
        let custom_domain = match &patch.custom_domain {
            Some(Some(domain)) => {
                if !found.owner_plan.allows(Feature::CustomDomain) {
                    return Err(HubError::PlanRequired { feature: Feature::CustomDomain, current: found.owner_plan });
                }
                Some(Some(Domain::parse(domain)?))
            }
            Some(None) => Some(None),
            None => None,
        };
        let project = &found.project;
        let changes = ProjectChanges {
            name: name.as_ref().map(ProjectName::as_str),
            is_public: patch.is_public,
            base_url: base_url.as_ref().map(|u| u.as_ref().map(HttpUrl::as_str)),
            custom_domain: custom_domain.as_ref().map(|d| d.as_ref().map(Domain::as_str)),
        };
        let mut drafts = Vec::new();
        if let Some(is_public) = patch.is_public.filter(|v| *v != project.is_public) {
            drafts.push(
                AuditDraft::new(AuditAction::ProjectVisibilityChanged, "project", &project.id)
                    .meta("from", if project.is_public { "public" } else { "private" })
                    .meta("to", if is_public { "public" } else { "private" }),
            );
        }
        if let Some(domain) = changes.custom_domain.filter(|d| *d != project.custom_domain.as_deref()) {
            drafts.push(
                AuditDraft::new(AuditAction::ProjectCustomDomainChanged, "project", &project.id)
                    .meta("from", project.custom_domain.clone())
                    .meta("to", domain.map(str::to_owned)),
            );
        }
        let renamed = changes.name.is_some_and(|n| n != project.name);
        let rebased = changes.base_url.is_some_and(|u| u != project.base_url.as_deref());
        if renamed || rebased {
            let mut fields = Vec::new();
            if renamed {
                fields.push("name");
            }
            if rebased {
                fields.push("base_url");
            }
            drafts.push(AuditDraft::new(AuditAction::ProjectUpdated, "project", &project.id).meta("fields", fields));
        }
        let audits: Vec<_> = drafts
            .into_iter()
            .filter_map(|d| {
                self.audit_row(&project.owner_id, found.owner_plan, &principal.user_id, source, d.project(&project.id))
            })
            .collect();
        self.store.update_project(&project.id, &changes, self.clock.now(), &audits).await?;
        self.mock_changed();
        self.project(principal, slug).await
    }

    /// Deletes a project and all its versions (owner only).
    pub async fn delete_project(&self, principal: &Principal, slug: &str, source: Source) -> HubResult<()> {
        let found = self.authorize_project(principal, slug, Action::DeleteProject).await?;
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::ProjectDeleted, "project", &project.id)
                .project(&project.id)
                .meta("slug", project.slug.as_str()),
        );
        self.store.delete_project(&project.id, audit.as_ref()).await.inspect(|()| self.mock_changed())
    }
}
