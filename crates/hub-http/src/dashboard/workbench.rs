//! Saved requests and environments in the dashboard: a project's Requests
//! tab (by folder, with import and export), one request's page (edit, run
//! with an environment, the answer highlighted, copy as curl, its runs),
//! and the Environments pages (variables, secrets that are never shown,
//! the project's default and one's own choice). `Ctrl`/`⌘` + `Enter` runs
//! the request from anywhere on its page.

use axum::extract::{Path, Query, RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::workbench::{Environment, EnvironmentInput, RequestInput, RunOutcome, SavedRequest};
use hub_core::{Action, Feature, HubError, Source};
use indexmap::IndexMap;
use serde_json::{Value, json};

use super::projects::project_view;
use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, when};

/// `Name: value` lines (headers).
fn header_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .filter(|(n, _)| !n.is_empty())
        .collect()
}

/// `name=value` lines (query pairs, variables, new secrets).
fn value_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| match line.split_once('=') {
            Some((n, v)) => (n.trim().to_owned(), v.trim().to_owned()),
            None => (line.to_owned(), String::new()),
        })
        .collect()
}

fn joined(pairs: &[(String, String)], separator: &str) -> String {
    pairs.iter().map(|(n, v)| format!("{n}{separator}{v}")).collect::<Vec<_>>().join("\n")
}

fn request_input(form: &Form) -> RequestInput {
    let body = form.get("body");
    RequestInput {
        name: Some(form.get("name").to_owned()),
        folder: Some(Some(form.get("folder").to_owned()).filter(|f| !f.trim().is_empty())),
        method: Some(form.get("method").to_owned()),
        url: Some(form.get("url").to_owned()),
        headers: Some(header_lines(form.get("headers"))),
        query: Some(value_lines(form.get("query"))),
        body: Some(Some(body.replace("\r\n", "\n")).filter(|b| !b.is_empty())),
    }
}

fn request_form(request: &SavedRequest) -> Form {
    let d = &request.draft;
    let mut form = Form::default();
    for (name, value) in [
        ("name", d.name.clone()),
        ("folder", d.folder.clone().unwrap_or_default()),
        ("method", d.method.clone()),
        ("url", d.url.clone()),
        ("headers", joined(&d.headers, ": ")),
        ("query", joined(&d.query, "=")),
        ("body", d.body.clone().unwrap_or_default()),
    ] {
        form.values.insert(name.into(), value);
    }
    form
}

fn environment_view(env: &Environment, active: Option<&str>) -> Value {
    json!({
        "id": env.id,
        "name": env.name,
        "variables": env.variables,
        "secrets": env.secret_names,
        "is_default": env.is_default,
        "active": active == Some(env.id.as_str()),
    })
}

/// The project page's preamble: signed in, the project, the plan.
async fn project_page(
    d: &Dashboard,
    headers: &HeaderMap,
    back: &str,
    slug: &str,
) -> Result<(Ctx, Me, Value, bool, bool), Response> {
    let (ctx, me) = d.signed_in(headers, back).await?;
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return Err(d.error_page(Some(&ctx), &e)),
    };
    let allowed = access.owner_plan.allows(Feature::SavedRequests);
    let edit = access.access.may(Action::UpdateProject);
    Ok((ctx, me, project_view(&access), allowed, edit))
}

pub(crate) async fn list(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let back = format!("/app/p/{slug}/requests");
    let (ctx, me, project, allowed, edit) = match project_page(&d, &headers, &back, &slug).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut page = json!({ "project": project, "tab": "requests", "allowed": allowed, "can": { "edit": edit } });
    if allowed {
        let (requests, environments) =
            match (d.hub.saved_requests(&me.principal, &slug).await, d.hub.environments(&me.principal, &slug).await) {
                (Ok(requests), Ok(environments)) => (requests, environments),
                (Err(e), _) | (_, Err(e)) => return d.error_page(Some(&ctx), &e),
            };
        let rows: Vec<Value> = requests
            .iter()
            .map(|r| json!({ "id": r.id, "name": r.draft.name, "folder": r.draft.folder, "method": r.draft.method, "url": r.draft.url }))
            .collect();
        if let Value::Object(map) = &mut page {
            map.insert("requests".into(), json!(rows));
            map.insert("environments".into(), json!(environments.0.len()));
        }
    }
    d.render(&ctx, StatusCode::OK, "requests.html", "projects", page)
}

/// The new-request form, prefilled from the query (`method`, `url`,
/// `name`, `body`, `headers` as `Name: value` lines): the docs' Try-It and
/// an inbox capture link here with what they hold.
pub(crate) async fn new_form(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let back = format!("/app/p/{slug}/requests/new");
    let (ctx, _, project, allowed, _) = match project_page(&d, &headers, &back, &slug).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut form = Form::default();
    form.values.insert("method".into(), "GET".into());
    for (name, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        if ["method", "url", "name", "body", "headers", "query", "folder"].contains(&name.as_ref()) {
            form.values.insert(name.into_owned(), value.chars().take(64 * 1024).collect());
        }
    }
    new_page(&d, &ctx, project, allowed, form, StatusCode::OK)
}

fn new_page(d: &Dashboard, ctx: &Ctx, project: Value, allowed: bool, form: Form, status: StatusCode) -> Response {
    let page = json!({
        "project": project,
        "tab": "requests",
        "allowed": allowed,
        "form": form.view(),
        "methods": workbench::METHODS,
    });
    d.render(ctx, status, "request_new.html", "projects", page)
}

pub(crate) async fn create(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.create_saved_request(&me.principal, &slug, request_input(&form), Source::Dashboard).await {
        Ok(made) => d.redirect_with(&format!("/app/p/{slug}/requests/{}", made.id), "success", "Request saved."),
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::Conflict { .. })) => {
            let access = match d.hub.project_access(&me.principal, &slug).await {
                Ok(access) => access,
                Err(e) => return d.error_page(Some(&ctx), &e),
            };
            new_page(&d, &ctx, project_view(&access), true, form.with_error(&e), StatusCode::UNPROCESSABLE_ENTITY)
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// One request's page; `outcome` is a run just made, `form` an edit that
/// was refused.
async fn request_page(
    d: &Dashboard,
    ctx: &Ctx,
    me: &Me,
    slug: &str,
    id: &str,
    outcome: Option<Result<RunOutcome, String>>,
    form: Option<Form>,
) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let p = &me.principal;
    let found = d.hub.saved_request(p, slug, id).await;
    let environments = d.hub.environments(p, slug).await;
    let runs = d.hub.request_runs(p, slug, id).await;
    let (request, (environments, active), runs) = match (found, environments, runs) {
        (Ok(r), Ok(e), Ok(runs)) => (r, e, runs),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let chosen = active.clone().or_else(|| environments.iter().find(|e| e.is_default).map(|e| e.id.clone()));
    let curl = d.hub.request_curl(p, slug, id, chosen.as_deref()).await.unwrap_or_default();
    let status = if form.as_ref().is_some_and(|f| !f.errors.is_empty()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let form = form.unwrap_or_else(|| request_form(&request));
    let ran = outcome.map(|outcome| match outcome {
        Ok(o) => {
            let pretty =
                serde_json::from_str::<Value>(&o.body).ok().and_then(|v| serde_json::to_string_pretty(&v).ok());
            let highlighted = pretty.as_deref().map(|p| docs_render::highlight::html(p, "json"));
            json!({
                "status": o.record.status,
                "ok": o.record.status.is_some_and(|s| (200..400).contains(&s)),
                "latency_ms": o.record.latency_ms,
                "size": o.record.size,
                "error": o.record.error,
                "resolved_url": o.record.resolved_url,
                "environment": o.record.environment,
                "headers": o.headers,
                "body": pretty.unwrap_or(o.body),
                "highlighted": highlighted,
                "truncated": o.truncated,
                "unresolved": o.unresolved,
            })
        }
        Err(message) => json!({ "refused": message }),
    });
    let page = json!({
        "project": project_view(&access),
        "tab": "requests",
        "can": { "edit": access.access.may(Action::UpdateProject) },
        "request": { "id": request.id, "name": request.draft.name, "method": request.draft.method, "url": request.draft.url, "folder": request.draft.folder, "placeholders": request.draft.placeholders() },
        "environments": environments.iter().map(|e| environment_view(e, active.as_deref())).collect::<Vec<_>>(),
        "chosen": chosen,
        "curl": curl,
        "ran": ran,
        "runs": runs.iter().map(|r| json!({
            "status": r.status, "latency_ms": r.latency_ms, "size": r.size, "error": r.error,
            "environment": r.environment, "resolved_url": r.resolved_url, "when": when(r.created_at),
            "at": r.created_at.to_rfc3339(),
        })).collect::<Vec<_>>(),
        "form": form.view(),
        "methods": workbench::METHODS,
    });
    d.render(ctx, status, "request.html", "projects", page)
}

pub(crate) async fn show(State(d): Dash, headers: HeaderMap, Path((slug, id)): Path<(String, String)>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/requests/{id}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    request_page(&d, &ctx, &me, &slug, &id, None, None).await
}

/// `save`, `run` and `delete` of one request.
pub(crate) async fn action(
    State(d): Dash,
    Path((slug, id, action)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let p = &me.principal;
    let back = format!("/app/p/{slug}/requests/{id}");
    match action.as_str() {
        "save" => match d.hub.update_saved_request(p, &slug, &id, request_input(&form), Source::Dashboard).await {
            Ok(_) => d.redirect_with(&back, "success", "Request saved."),
            Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. })) => {
                request_page(&d, &ctx, &me, &slug, &id, None, Some(form.with_error(&e))).await
            }
            Err(e) => d.error_page(Some(&ctx), &e),
        },
        "run" => {
            let environment = Some(form.get("environment")).filter(|e| !e.is_empty());
            let outcome = match d.hub.run_saved_request(p, &slug, &id, environment).await {
                Ok(outcome) => Ok(outcome),
                Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. })) => Err(e.to_string()),
                Err(e) => return d.error_page(Some(&ctx), &e),
            };
            request_page(&d, &ctx, &me, &slug, &id, Some(outcome), None).await
        }
        "delete" => match d.hub.delete_saved_request(p, &slug, &id, Source::Dashboard).await {
            Ok(()) => d.redirect_with(&format!("/app/p/{slug}/requests"), "success", "Request deleted."),
            Err(e) => d.error_page(Some(&ctx), &e),
        },
        _ => d.error_page(Some(&ctx), &HubError::not_found("action")),
    }
}

/// The Postman collection of the project's requests, as a download.
pub(crate) async fn export(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/requests")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match d.hub.export_saved_requests(&me.principal, &slug).await {
        Ok(document) => download(&document, &format!("{slug}.postman_collection.json")),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

fn download(document: &Value, file: &str) -> Response {
    let body = serde_json::to_string_pretty(document).unwrap_or_default();
    (
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file}\"")),
        ],
        body,
    )
        .into_response()
}

/// Imports a Postman collection file (multipart `collection`).
pub(crate) async fn import(
    State(d): Dash,
    Path(slug): Path<String>,
    Query(query): Query<super::builder::ImportQuery>,
    request: Request,
) -> Response {
    let headers = request.headers().clone();
    let back = format!("/app/p/{slug}/requests");
    let (ctx, me) = match d.upload_gate(&headers, &back, &query.csrf_token, &slug, Action::UpdateProject).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let limit = workbench::postman::MAX_IMPORT_BYTES;
    let upload = match super::read_upload(request, "collection", limit, "The collection is larger than 5 MiB.").await {
        Ok(upload) => upload,
        Err(message) => return d.redirect_with(&back, "error", &message),
    };
    let Some(bytes) = upload.file.filter(|b| !b.is_empty()) else {
        return d.redirect_with(&back, "error", "Choose a Postman collection (v2.1) file to import.");
    };
    match d.hub.import_saved_requests(&me.principal, &slug, &bytes, Source::Dashboard).await {
        Ok(report) => {
            let noun = if report.imported == 1 { "request" } else { "requests" };
            let mut text = format!("Imported {} {noun}.", report.imported);
            if report.environment.is_some() {
                text.push_str(" The collection's variables are an environment now.");
            }
            if !report.skipped.is_empty() {
                text.push_str(&format!(" Not imported: {}.", report.skipped.join("; ")));
            }
            d.redirect_with(&back, "success", &text)
        }
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::Conflict { .. })) => {
            d.redirect_with(&back, "error", &e.to_string())
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The environment form's fields as an input: `variables` and
/// `new_secrets` lines, and each stored secret's `secret:<name>` (empty
/// keeps it) and `remove:<name>` fields.
fn environment_input(form: &Form, stored: &[String]) -> EnvironmentInput {
    let mut secrets: IndexMap<String, Option<String>> = IndexMap::new();
    for name in stored {
        if form.checked(&format!("remove:{name}")) {
            continue;
        }
        let value = form.get(&format!("secret:{name}"));
        secrets.insert(name.clone(), Some(value.to_owned()).filter(|v| !v.is_empty()));
    }
    for (name, value) in value_lines(form.get("new_secrets")) {
        secrets.insert(name, Some(value));
    }
    EnvironmentInput {
        name: Some(form.get("name").to_owned()),
        variables: Some(value_lines(form.get("variables")).into_iter().collect()),
        secrets: Some(secrets),
        is_default: Some(form.checked("is_default")),
        active: None,
    }
}

async fn environments_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, form: Form) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let allowed = access.owner_plan.allows(Feature::SavedRequests);
    let mut page = json!({
        "project": project_view(&access),
        "tab": "requests",
        "allowed": allowed,
        "can": { "edit": access.access.may(Action::UpdateProject) },
        "form": form.view(),
    });
    if allowed {
        let (listed, active) = match d.hub.environments(&me.principal, slug).await {
            Ok(found) => found,
            Err(e) => return d.error_page(Some(ctx), &e),
        };
        if let Value::Object(map) = &mut page {
            map.insert(
                "environments".into(),
                json!(listed.iter().map(|e| environment_view(e, active.as_deref())).collect::<Vec<_>>()),
            );
        }
    }
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(ctx, status, "environments.html", "projects", page)
}

pub(crate) async fn environments(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/environments")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    environments_page(&d, &ctx, &me, &slug, Form::default()).await
}

pub(crate) async fn environment_create(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.create_environment(&me.principal, &slug, environment_input(&form, &[]), Source::Dashboard).await {
        Ok((env, _)) => {
            d.redirect_with(&format!("/app/p/{slug}/environments/{}", env.id), "success", "Environment made.")
        }
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::Conflict { .. })) => {
            environments_page(&d, &ctx, &me, &slug, form.with_error(&e)).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn environment_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, id: &str, form: Option<Form>) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let (env, active) = match d.hub.environment(&me.principal, slug, id).await {
        Ok(found) => found,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let status = if form.as_ref().is_some_and(|f| !f.errors.is_empty()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        form.values.insert("name".into(), env.name.clone());
        form.values.insert("variables".into(), joined(&env.variables, "="));
        if env.is_default {
            form.values.insert("is_default".into(), "on".into());
        }
        form
    });
    let page = json!({
        "project": project_view(&access),
        "tab": "requests",
        "can": { "edit": access.access.may(Action::UpdateProject) },
        "environment": environment_view(&env, active.then_some(env.id.as_str())),
        "form": form.view(),
    });
    d.render(ctx, status, "environment.html", "projects", page)
}

pub(crate) async fn environment(
    State(d): Dash,
    headers: HeaderMap,
    Path((slug, id)): Path<(String, String)>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/environments/{id}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    environment_page(&d, &ctx, &me, &slug, &id, None).await
}

/// `save`, `use` (one's own), `unuse`, `export` (with secret values:
/// editors, written in the audit log) and `delete` of one environment.
pub(crate) async fn environment_action(
    State(d): Dash,
    Path((slug, id, action)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let p = &me.principal;
    let back = format!("/app/p/{slug}/environments/{id}");
    let choose = |active: bool| EnvironmentInput { active: Some(active), ..EnvironmentInput::default() };
    match action.as_str() {
        "save" => {
            let stored = match d.hub.environment(p, &slug, &id).await {
                Ok((env, _)) => env.secret_names,
                Err(e) => return d.error_page(Some(&ctx), &e),
            };
            match d.hub.update_environment(p, &slug, &id, environment_input(&form, &stored), Source::Dashboard).await {
                Ok(_) => d.redirect_with(&back, "success", "Environment saved."),
                Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::Conflict { .. })) => {
                    environment_page(&d, &ctx, &me, &slug, &id, Some(form.with_error(&e))).await
                }
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        "use" | "unuse" => {
            match d.hub.update_environment(p, &slug, &id, choose(action == "use"), Source::Dashboard).await {
                Ok(_) => {
                    let text = if action == "use" {
                        "Your requests run with this environment now."
                    } else {
                        "Back to the project's default."
                    };
                    d.redirect_with(&format!("/app/p/{slug}/environments"), "success", text)
                }
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        "export" => {
            let with_secrets = form.checked("secrets");
            match d.hub.export_environment(p, &slug, &id, with_secrets, Source::Dashboard).await {
                Ok(document) => download(&document, &format!("{slug}.postman_environment.json")),
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        "delete" => match d.hub.delete_environment(p, &slug, &id, Source::Dashboard).await {
            Ok(()) => d.redirect_with(&format!("/app/p/{slug}/environments"), "success", "Environment deleted."),
            Err(e) => d.error_page(Some(&ctx), &e),
        },
        _ => d.error_page(Some(&ctx), &HubError::not_found("action")),
    }
}

/// The templates of this module, for `pages()`.
pub(crate) const TEMPLATES: [(&str, &str); 6] = [
    ("requests.html", include_str!("../../templates/dashboard/requests.html")),
    ("request_fields.html", include_str!("../../templates/dashboard/request_fields.html")),
    ("request_new.html", include_str!("../../templates/dashboard/request_new.html")),
    ("request.html", include_str!("../../templates/dashboard/request.html")),
    ("environments.html", include_str!("../../templates/dashboard/environments.html")),
    ("environment.html", include_str!("../../templates/dashboard/environment.html")),
];

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn form_lines_become_pairs() {
        assert_eq!(
            header_lines("Authorization: Bearer {{token}}\n\nX-A:b:c\nnot a header"),
            [("Authorization".to_owned(), "Bearer {{token}}".to_owned()), ("X-A".to_owned(), "b:c".to_owned())]
        );
        assert_eq!(
            value_lines(" a = 1 \nb\n\nc=x=y"),
            [("a".into(), "1".into()), ("b".into(), String::new()), ("c".into(), "x=y".into())]
        );
        let mut form = Form::default();
        form.values.insert("secret:token".into(), String::new());
        form.values.insert("remove:old".into(), "on".into());
        form.values.insert("new_secrets".into(), "key=v".into());
        let input = environment_input(&form, &["token".to_owned(), "old".to_owned()]);
        let secrets = input.secrets.unwrap();
        assert_eq!(secrets.get("token"), Some(&None), "an empty field keeps the stored value");
        assert!(!secrets.contains_key("old"), "a ticked box removes it");
        assert_eq!(secrets.get("key"), Some(&Some("v".to_owned())));
    }
}
