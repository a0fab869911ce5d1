//! Saved requests with environments (Pro and up): the project's API
//! workbench beside its docs.
//!
//! Environments are named maps of variables plus secrets sealed with the
//! service's key; a member's chosen environment, else the project's
//! default, fills a request's `{{name}}` placeholders when it runs. A run
//! goes through the Try-It relay's checks and the outbound guard, and what
//! is answered or kept of it (the URL, the echo of headers, the response)
//! has every secret's value masked. What a request is, its limits and its
//! Postman and curl forms are the pure `workbench` crate's.

use indexmap::IndexMap;
use kernel::Timestamp;
use serde::Deserialize;
use serde_json::{Value, json};
use workbench::{Invalid, RequestDraft};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, ProjectAccess, Source};
use crate::plans::Feature;
use crate::roles::Action;

/// `(name, value)` pairs, in order.
type Pairs = Vec<(String, String)>;

/// Descriptions whose API base URL a node keeps (for path URLs).
pub const BASE_CACHE: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub variables: Vec<(String, String)>,
    pub secret_names: Vec<String>,
    pub is_default: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// An environment with its sealed secrets, as the store keeps it.
#[derive(Clone, Debug)]
pub struct StoredEnvironment {
    pub environment: Environment,
    /// `(name, sealed value)`.
    pub secrets: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedRequest {
    pub id: String,
    pub project_id: String,
    pub draft: RequestDraft,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// One kept run of a saved request (secrets masked, no body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRecord {
    pub id: String,
    pub request_id: String,
    pub user_id: Option<String>,
    /// The environment's name at the time.
    pub environment: Option<String>,
    pub resolved_url: String,
    pub status: Option<u16>,
    pub latency_ms: i64,
    pub size: i64,
    pub error: Option<String>,
    pub created_at: Timestamp,
}

/// What a run answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    pub record: RunRecord,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub truncated: bool,
    /// Placeholders no environment held, sent as written.
    pub unresolved: Vec<String>,
}

/// The API's body for an environment; on a change every field is optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentInput {
    #[serde(default, deserialize_with = "not_null")]
    pub name: Option<String>,
    /// Replaces every variable.
    pub variables: Option<IndexMap<String, String>>,
    /// Replaces the set of secrets: a value sets it, `null` keeps the
    /// stored value of that name (and adds nothing when there is none), a
    /// name left out is removed.
    pub secrets: Option<IndexMap<String, Option<String>>>,
    /// Makes this the project's default (`false` leaves it without one).
    pub is_default: Option<bool>,
    /// Makes this the caller's environment for the project (`false`
    /// returns them to the default).
    pub active: Option<bool>,
}

/// The API's body for a saved request; on a change every field is optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestInput {
    #[serde(default, deserialize_with = "not_null")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    pub folder: Option<Option<String>>,
    #[serde(default, deserialize_with = "not_null")]
    pub method: Option<String>,
    #[serde(default, deserialize_with = "not_null")]
    pub url: Option<String>,
    pub headers: Option<Vec<(String, String)>>,
    pub query: Option<Vec<(String, String)>>,
    #[serde(default, deserialize_with = "double_option")]
    pub body: Option<Option<String>>,
}

/// A field that may be left out but is never `null`.
fn not_null<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

impl RequestInput {
    /// This change applied to `current` (or a new request when `None`).
    fn apply(self, current: Option<&RequestDraft>) -> Result<RequestDraft, HubError> {
        let base = current.cloned().unwrap_or_default();
        let required = |value: Option<String>, field: &'static str, current: &str| match value {
            Some(v) => Ok(v),
            None if !current.is_empty() => Ok(current.to_owned()),
            None => Err(HubError::validation(field, format!("`{field}` is required"))),
        };
        let draft = RequestDraft {
            name: required(self.name, "name", &base.name)?,
            method: required(self.method, "method", &base.method)?,
            url: required(self.url, "url", &base.url)?,
            folder: self.folder.unwrap_or(base.folder),
            headers: self.headers.unwrap_or(base.headers),
            query: self.query.unwrap_or(base.query),
            body: self.body.unwrap_or(base.body),
        };
        draft.normalise().map_err(invalid)
    }
}

pub(crate) fn invalid(err: Invalid) -> HubError {
    HubError::InvalidField { field: err.field, message: err.message }
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// An environment as answered: secret values never, their names with
/// `null`.
#[must_use]
pub fn environment_json(env: &Environment, active: bool) -> Value {
    let variables: serde_json::Map<String, Value> =
        env.variables.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    let secrets: serde_json::Map<String, Value> = env.secret_names.iter().map(|k| (k.clone(), Value::Null)).collect();
    json!({
        "id": env.id,
        "name": env.name,
        "variables": variables,
        "secrets": secrets,
        "is_default": env.is_default,
        "active": active,
        "created_at": env.created_at.to_rfc3339(),
        "updated_at": env.updated_at.to_rfc3339(),
    })
}

#[must_use]
pub fn request_json(request: &SavedRequest) -> Value {
    let d = &request.draft;
    json!({
        "id": request.id,
        "name": d.name,
        "folder": d.folder,
        "method": d.method,
        "url": d.url,
        "headers": d.headers,
        "query": d.query,
        "body": d.body,
        "placeholders": d.placeholders(),
        "created_at": request.created_at.to_rfc3339(),
        "updated_at": request.updated_at.to_rfc3339(),
    })
}

#[must_use]
pub fn run_json(run: &RunRecord) -> Value {
    json!({
        "id": run.id,
        "environment": run.environment,
        "resolved_url": run.resolved_url,
        "status": run.status,
        "latency_ms": run.latency_ms,
        "size": run.size,
        "error": run.error,
        "created_at": run.created_at.to_rfc3339(),
    })
}

#[must_use]
pub fn outcome_json(outcome: &RunOutcome) -> Value {
    let mut out = run_json(&outcome.record);
    if let Value::Object(map) = &mut out {
        map.insert("method".into(), json!(outcome.method));
        map.insert("headers".into(), json!(outcome.headers));
        map.insert("body".into(), json!(outcome.body));
        map.insert("truncated".into(), json!(outcome.truncated));
        map.insert("unresolved".into(), json!(outcome.unresolved));
    }
    out
}

/// What an import made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportReport {
    pub imported: usize,
    /// The environment made of the collection's variables, if it had any.
    pub environment: Option<String>,
    pub skipped: Vec<String>,
}

impl Hub {
    /// The project, its role gate and the plan gate (402 below Pro).
    async fn workbench_project(&self, principal: &Principal, slug: &str, action: Action) -> HubResult<ProjectAccess> {
        let found = self.authorize_project(principal, slug, action).await?;
        if !found.owner_plan.allows(Feature::SavedRequests) {
            return Err(HubError::PlanRequired { feature: Feature::SavedRequests, current: found.owner_plan });
        }
        Ok(found)
    }

    fn workbench_audit(
        &self,
        found: &ProjectAccess,
        principal: &Principal,
        source: Source,
        draft: AuditDraft,
    ) -> Option<crate::model::AuditEvent> {
        self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            draft.project(&found.project.id),
        )
    }

    /// The project's environments, and the caller's chosen one.
    pub async fn environments(
        &self,
        principal: &Principal,
        slug: &str,
    ) -> HubResult<(Vec<Environment>, Option<String>)> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        let listed = self.store.environments(&found.project.id).await?;
        let active = self.store.environment_choice(&principal.user_id, &found.project.id).await?;
        Ok((listed.into_iter().map(|s| s.environment).collect(), active))
    }

    pub async fn environment(&self, principal: &Principal, slug: &str, id: &str) -> HubResult<(Environment, bool)> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        let stored = self.stored_environment(&found, id).await?;
        let active = self.store.environment_choice(&principal.user_id, &found.project.id).await?;
        let is_active = active.as_deref() == Some(stored.environment.id.as_str());
        Ok((stored.environment, is_active))
    }

    async fn stored_environment(&self, found: &ProjectAccess, id: &str) -> HubResult<StoredEnvironment> {
        self.store.environment(&found.project.id, id).await?.ok_or_else(|| HubError::not_found("environment"))
    }

    /// Validates and seals an environment's input against what is stored.
    fn environment_record(
        &self,
        input: &EnvironmentInput,
        current: Option<&StoredEnvironment>,
    ) -> HubResult<(String, Pairs, Pairs)> {
        let name = match (&input.name, current) {
            (Some(name), _) => name.trim().to_owned(),
            (None, Some(current)) => current.environment.name.clone(),
            (None, None) => return Err(HubError::validation("name", "`name` is required")),
        };
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(HubError::validation("name", "1 to 100 characters without control characters"));
        }
        let variables: Vec<(String, String)> = match &input.variables {
            Some(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            None => current.map(|c| c.environment.variables.clone()).unwrap_or_default(),
        };
        let secrets: Vec<(String, String)> = match &input.secrets {
            Some(map) => {
                let mut sealed = Vec::with_capacity(map.len());
                for (secret_name, value) in map {
                    workbench::check_variable_name("secrets", secret_name).map_err(invalid)?;
                    let stored = current.and_then(|c| c.secrets.iter().find(|(n, _)| n == secret_name));
                    match (value, stored) {
                        (Some(value), _) => {
                            workbench::check_secret_value(secret_name, value).map_err(invalid)?;
                            sealed.push((secret_name.clone(), self.secret_key.seal(value)));
                        }
                        (None, Some((_, kept))) => sealed.push((secret_name.clone(), kept.clone())),
                        // Nothing stored to keep: the name is left out.
                        (None, None) => {}
                    }
                }
                sealed
            }
            None => current.map(|c| c.secrets.clone()).unwrap_or_default(),
        };
        let names: Vec<&str> = secrets.iter().map(|(n, _)| n.as_str()).collect();
        workbench::check_environment(&variables, &names).map_err(invalid)?;
        Ok((name, variables, secrets))
    }

    pub async fn create_environment(
        &self,
        principal: &Principal,
        slug: &str,
        input: EnvironmentInput,
        source: Source,
    ) -> HubResult<(Environment, bool)> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let (name, variables, secrets) = self.environment_record(&input, None)?;
        let id = new_id("env");
        let draft = AuditDraft::new(AuditAction::EnvironmentCreated, "environment", &id)
            .meta("name", name.as_str())
            .meta("variables", variables.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
            .meta("secrets", secrets.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>());
        let audit = self.workbench_audit(&found, principal, source, draft);
        let now = self.clock.now();
        let row = crate::store::EnvironmentRow { id: &id, name: &name, variables: &variables, secrets: &secrets };
        self.store
            .insert_environment(&found.project.id, &row, input.is_default == Some(true), now, audit.as_ref())
            .await?;
        if input.active == Some(true) {
            self.store.choose_environment(&principal.user_id, &found.project.id, Some(&id)).await?;
        }
        self.environment(principal, slug, &id).await
    }

    pub async fn update_environment(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        input: EnvironmentInput,
        source: Source,
    ) -> HubResult<(Environment, bool)> {
        // Choosing one's own environment is reading, not editing.
        let only_choice =
            input.name.is_none() && input.variables.is_none() && input.secrets.is_none() && input.is_default.is_none();
        let action = if only_choice { Action::ViewProject } else { Action::UpdateProject };
        let found = self.workbench_project(principal, slug, action).await?;
        let current = self.stored_environment(&found, id).await?;
        if !only_choice {
            let (name, variables, secrets) = self.environment_record(&input, Some(&current))?;
            let draft = AuditDraft::new(AuditAction::EnvironmentUpdated, "environment", id)
                .meta("name", name.as_str())
                .meta("variables", variables.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
                .meta("secrets", secrets.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>());
            let audit = self.workbench_audit(&found, principal, source, draft);
            let row = crate::store::EnvironmentRow { id, name: &name, variables: &variables, secrets: &secrets };
            self.store
                .update_environment(&found.project.id, &row, input.is_default, self.clock.now(), audit.as_ref())
                .await?;
        }
        match input.active {
            Some(true) => self.store.choose_environment(&principal.user_id, &found.project.id, Some(id)).await?,
            Some(false) => self.store.choose_environment(&principal.user_id, &found.project.id, None).await?,
            None => {}
        }
        self.environment(principal, slug, id).await
    }

    pub async fn delete_environment(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        source: Source,
    ) -> HubResult<()> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let current = self.stored_environment(&found, id).await?;
        let draft = AuditDraft::new(AuditAction::EnvironmentDeleted, "environment", id)
            .meta("name", current.environment.name.as_str());
        let audit = self.workbench_audit(&found, principal, source, draft);
        self.store.delete_environment(&found.project.id, id, audit.as_ref()).await
    }

    /// The project's saved requests, by folder then name.
    pub async fn saved_requests(&self, principal: &Principal, slug: &str) -> HubResult<Vec<SavedRequest>> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        self.store.saved_requests(&found.project.id).await
    }

    pub async fn saved_request(&self, principal: &Principal, slug: &str, id: &str) -> HubResult<SavedRequest> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        self.stored_request(&found, id).await
    }

    async fn stored_request(&self, found: &ProjectAccess, id: &str) -> HubResult<SavedRequest> {
        self.store.saved_request(&found.project.id, id).await?.ok_or_else(|| HubError::not_found("request"))
    }

    pub async fn create_saved_request(
        &self,
        principal: &Principal,
        slug: &str,
        input: RequestInput,
        source: Source,
    ) -> HubResult<SavedRequest> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let draft = input.apply(None)?;
        let id = new_id("req");
        let audit_draft = AuditDraft::new(AuditAction::RequestCreated, "request", &id)
            .meta("name", draft.name.as_str())
            .meta("method", draft.method.as_str());
        let audit = self.workbench_audit(&found, principal, source, audit_draft);
        let now = self.clock.now();
        self.store.insert_saved_requests(&found.project.id, &[(id.clone(), draft)], now, audit.as_ref()).await?;
        self.stored_request(&found, &id).await
    }

    pub async fn update_saved_request(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        input: RequestInput,
        source: Source,
    ) -> HubResult<SavedRequest> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let current = self.stored_request(&found, id).await?;
        let draft = input.apply(Some(&current.draft))?;
        let audit_draft = AuditDraft::new(AuditAction::RequestUpdated, "request", id)
            .meta("name", draft.name.as_str())
            .meta("method", draft.method.as_str());
        let audit = self.workbench_audit(&found, principal, source, audit_draft);
        self.store.update_saved_request(&found.project.id, id, &draft, self.clock.now(), audit.as_ref()).await?;
        self.stored_request(&found, id).await
    }

    pub async fn delete_saved_request(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        source: Source,
    ) -> HubResult<()> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let current = self.stored_request(&found, id).await?;
        let draft =
            AuditDraft::new(AuditAction::RequestDeleted, "request", id).meta("name", current.draft.name.as_str());
        let audit = self.workbench_audit(&found, principal, source, draft);
        self.store.delete_saved_request(&found.project.id, id, audit.as_ref()).await
    }

    /// The environment a run uses: the one named, else the caller's
    /// choice, else the project's default, else none.
    async fn run_environment(
        &self,
        found: &ProjectAccess,
        principal: &Principal,
        named: Option<&str>,
    ) -> HubResult<Option<StoredEnvironment>> {
        if let Some(id) = named.filter(|n| !n.is_empty()) {
            return self
                .store
                .environment(&found.project.id, id)
                .await?
                .map(Some)
                .ok_or_else(|| HubError::validation("environment", "no environment with this id in the project"));
        }
        if let Some(id) = self.store.environment_choice(&principal.user_id, &found.project.id).await?
            && let Some(env) = self.store.environment(&found.project.id, &id).await?
        {
            return Ok(Some(env));
        }
        let listed = self.store.environments(&found.project.id).await?;
        Ok(listed.into_iter().find(|e| e.environment.is_default))
    }

    /// The variables and opened secrets of an environment.
    fn opened(&self, env: Option<&StoredEnvironment>) -> (Pairs, Pairs) {
        let Some(env) = env else { return (Vec::new(), Vec::new()) };
        let secrets = env
            .secrets
            .iter()
            .filter_map(|(name, sealed)| self.secret_key.open(sealed).ok().map(|value| (name.clone(), value)))
            .collect();
        (env.environment.variables.clone(), secrets)
    }

    /// The API base a path URL is joined to: the default version's base
    /// URL, else the project's, else the description's first server.
    async fn request_base(&self, found: &ProjectAccess) -> HubResult<Option<String>> {
        let Some(version) = self.store.default_version(&found.project.id).await? else {
            return Ok(found.project.base_url.clone());
        };
        if let Some(base) = version.base_url.clone().or_else(|| found.project.base_url.clone()) {
            return Ok(Some(base));
        }
        if version.spec_format == spec::SpecFormat::GraphQl.as_str() {
            return Ok(None);
        }
        let sha = version.spec_sha256.clone();
        let base = self
            .request_bases
            .get_or_build(&sha, || async {
                let document =
                    self.blobs.get(&sha).await?.ok_or_else(|| HubError::Internal(format!("blob {sha} is missing")))?;
                let limits = self.spec_limits.clone();
                let base = tokio::task::spawn_blocking(move || {
                    spec::parse_with(&document, &limits).map(|spec| crate::monitoring::probe_base(None, None, &spec))
                })
                .await
                .map_err(|e| HubError::Internal(format!("spec parser task failed: {e}")))?
                .map_err(HubError::InvalidSpec)?;
                // Weighed by count only: a base URL is a few bytes.
                Ok::<_, HubError>((base, 0))
            })
            .await?;
        Ok(base.as_ref().clone())
    }

    /// Runs a saved request (editors): placeholders resolved from the
    /// environment, sent through the relay's checks and the outbound
    /// guard, secrets masked in the answer and the kept run.
    pub async fn run_saved_request(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        environment: Option<&str>,
    ) -> HubResult<RunOutcome> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let request = self.stored_request(&found, id).await?;
        let env = self.run_environment(&found, principal, environment).await?;
        let (variables, secrets) = self.opened(env.as_ref());
        let base = self.request_base(&found).await?;
        let lookup =
            |name: &str| secrets.iter().chain(variables.iter()).find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let resolved = workbench::resolve(&request.draft, lookup, base.as_deref()).map_err(invalid)?;
        let secret_values: Vec<&str> = secrets.iter().map(|(_, v)| v.as_str()).collect();
        let masked_url = workbench::mask(resolved.url.as_str(), &secret_values);
        let relayed = crate::tryit::RelayRequest::checked(
            resolved.method.clone(),
            resolved.url.clone(),
            resolved.headers.clone(),
            resolved.body.clone().unwrap_or_default().into_bytes(),
        )?;
        let sent = crate::tryit::send(&self.relay, relayed).await?;
        let record = RunRecord {
            id: new_id("run"),
            request_id: request.id.clone(),
            user_id: Some(principal.user_id.clone()),
            environment: env.as_ref().map(|e| e.environment.name.clone()),
            resolved_url: masked_url,
            status: sent.status,
            latency_ms: i64::try_from(sent.duration_ms).unwrap_or(i64::MAX),
            size: i64::try_from(sent.body.len()).unwrap_or(i64::MAX),
            error: sent.error.as_deref().map(|e| workbench::mask(e, &secret_values)),
            created_at: self.clock.now(),
        };
        self.store.insert_run(&record, workbench::MAX_RUNS).await?;
        let headers = sent.headers.iter().map(|(n, v)| (n.clone(), workbench::mask(v, &secret_values))).collect();
        Ok(RunOutcome {
            record,
            method: resolved.method,
            headers,
            body: workbench::mask(&String::from_utf8_lossy(&sent.body), &secret_values),
            truncated: sent.truncated,
            unresolved: resolved.unknown,
        })
    }

    /// The request's kept runs, newest first.
    pub async fn request_runs(&self, principal: &Principal, slug: &str, id: &str) -> HubResult<Vec<RunRecord>> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        self.stored_request(&found, id).await?;
        self.store.runs(id).await
    }

    /// "Copy as curl": the chosen environment's variables filled in, its
    /// secrets as shell variables.
    pub async fn request_curl(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        environment: Option<&str>,
    ) -> HubResult<String> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        let request = self.stored_request(&found, id).await?;
        let env = self.run_environment(&found, principal, environment).await?;
        let base = self.request_base(&found).await?;
        let variables = env.as_ref().map(|e| e.environment.variables.clone()).unwrap_or_default();
        let secrets = env.as_ref().map(|e| e.environment.secret_names.clone()).unwrap_or_default();
        workbench::curl::command(&request.draft, base.as_deref(), |name| {
            if secrets.iter().any(|s| s == name) {
                return Some(workbench::curl::Fill::ShellVariable(workbench::curl::shell_variable(name)));
            }
            variables.iter().find(|(n, _)| n == name).map(|(_, v)| workbench::curl::Fill::Value(v.as_str()))
        })
        .map_err(invalid)
    }

    /// The project's saved requests as a Postman collection v2.1.
    pub async fn export_saved_requests(&self, principal: &Principal, slug: &str) -> HubResult<Value> {
        let found = self.workbench_project(principal, slug, Action::ViewProject).await?;
        let requests = self.store.saved_requests(&found.project.id).await?;
        let base = self.request_base(&found).await?;
        let exported: Vec<workbench::postman::Exported<'_>> =
            requests.iter().map(|r| workbench::postman::Exported { id: &r.id, draft: &r.draft }).collect();
        Ok(workbench::postman::export_collection(&found.project.id, &found.project.name, &exported, base.as_deref()))
    }

    /// One environment as a Postman environment: secret values empty unless
    /// `with_secrets` (editors only, and written in the audit log).
    pub async fn export_environment(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        with_secrets: bool,
        source: Source,
    ) -> HubResult<Value> {
        let action = if with_secrets { Action::UpdateProject } else { Action::ViewProject };
        let found = self.workbench_project(principal, slug, action).await?;
        let stored = self.stored_environment(&found, id).await?;
        let secrets: Vec<(String, Option<String>)> = if with_secrets {
            let draft = AuditDraft::new(AuditAction::EnvironmentSecretsExported, "environment", id)
                .meta("name", stored.environment.name.as_str());
            if let Some(event) = self.workbench_audit(&found, principal, source, draft) {
                self.store.insert_audit_event(&event).await?;
            }
            self.opened(Some(&stored)).1.into_iter().map(|(n, v)| (n, Some(v))).collect()
        } else {
            stored.environment.secret_names.iter().map(|n| (n.clone(), None)).collect()
        };
        let env = &stored.environment;
        Ok(workbench::postman::export_environment(&env.id, &env.name, &env.variables, &secrets))
    }

    /// Imports a Postman collection v2.1: its requests with their folders,
    /// and its variables as an environment named after it.
    pub async fn import_saved_requests(
        &self,
        principal: &Principal,
        slug: &str,
        bytes: &[u8],
        source: Source,
    ) -> HubResult<ImportReport> {
        let found = self.workbench_project(principal, slug, Action::UpdateProject).await?;
        let imported = workbench::postman::import_collection(bytes).map_err(invalid)?;
        let mut drafts = Vec::with_capacity(imported.requests.len());
        let mut skipped = imported.skipped;
        for (at, draft) in imported.requests.into_iter().enumerate() {
            let name = draft.name.clone();
            match draft.normalise() {
                Ok(draft) => drafts.push((new_id("req"), draft)),
                Err(e) => skipped.push(format!("{} (item {}): {e}", if name.is_empty() { "?" } else { &name }, at + 1)),
            }
        }
        let draft = AuditDraft::new(AuditAction::RequestsImported, "project", &found.project.id)
            .meta("collection", imported.name.as_str())
            .meta("imported", drafts.len());
        let audit = self.workbench_audit(&found, principal, source, draft);
        let now = self.clock.now();
        self.store.insert_saved_requests(&found.project.id, &drafts, now, audit.as_ref()).await?;
        let mut environment = None;
        if !imported.variables.is_empty() {
            let name = if imported.name.is_empty() { "Imported".to_owned() } else { imported.name.clone() };
            let taken = self.store.environments(&found.project.id).await?.iter().any(|e| e.environment.name == name);
            let name = if taken { format!("{name} ({})", now.to_rfc3339()) } else { name };
            let input = EnvironmentInput {
                name: Some(name.chars().take(100).collect()),
                variables: Some(imported.variables.into_iter().collect()),
                ..EnvironmentInput::default()
            };
            match self.create_environment(principal, slug, input, source).await {
                Ok((env, _)) => environment = Some(env.id),
                Err(e) => skipped.push(format!("the collection's variables: {e}")),
            }
        }
        Ok(ImportReport { imported: drafts.len(), environment, skipped })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn changes_apply_over_what_is_stored() {
        let created = RequestInput {
            name: Some("List".into()),
            method: Some("get".into()),
            url: Some("/pets".into()),
            ..RequestInput::default()
        }
        .apply(None)
        .unwrap();
        assert_eq!(created.method, "GET");
        let missing = RequestInput { name: Some("x".into()), ..RequestInput::default() }.apply(None);
        assert!(matches!(missing, Err(HubError::Validation { field: Some("method"), .. })), "{missing:?}");
        let changed: RequestInput = serde_json::from_value(json!({"folder": "Pets", "body": null})).unwrap();
        let changed = changed.apply(Some(&created)).unwrap();
        assert_eq!(
            (changed.name.as_str(), changed.folder.as_deref(), changed.body.as_deref()),
            ("List", Some("Pets"), None)
        );
        let unfolded: RequestInput = serde_json::from_value(json!({"folder": null})).unwrap();
        assert_eq!(unfolded.apply(Some(&changed)).unwrap().folder, None);
    }

    #[test]
    fn secret_values_are_never_answered() {
        let env = Environment {
            id: "env_1".into(),
            project_id: "p".into(),
            name: "Staging".into(),
            variables: vec![("base".into(), "https://x".into())],
            secret_names: vec!["token".into()],
            is_default: true,
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        };
        let answered = environment_json(&env, false);
        assert_eq!(answered["secrets"], json!({"token": null}));
        assert_eq!(answered["variables"], json!({"base": "https://x"}));
    }
}
