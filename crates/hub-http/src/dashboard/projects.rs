//! Projects, versions, settings, diffs and SDKs.

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::projects::{CreateProject, ProjectPatch};
use hub_core::sdks::Language;
use hub_core::versions::{PushVersion, VersionPatch};
use hub_core::{Action, Feature, HubError, ProjectAccess, Source, Version};
use kernel::PageRequest;
use serde::Deserialize;
use serde_json::{Value, json};

use page_kit::pager;

use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, when};

/// Projects per page of the list, versions per page of a project.
const PER_PAGE: u32 = 25;
/// Changes shown on the diff page; the Markdown report has them all.
const DIFF_CHANGES_SHOWN: usize = 500;

#[derive(Deserialize, Default)]
pub(crate) struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    offset: u64,
}

pub(crate) async fn list(State(d): Dash, headers: HeaderMap, Query(query): Query<ListQuery>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let q = query.q.trim();
    let page = PageRequest::clamped(Some(i64::from(PER_PAGE)), Some(query.offset));
    let listed = d.hub.list_projects(&me.principal, (!q.is_empty()).then_some(q), page).await;
    let usage = d.hub.usage(&me.principal).await;
    match (listed, usage) {
        (Ok(listed), Ok(usage)) => {
            let projects: Vec<Value> = listed
                .items
                .iter()
                .map(|p| {
                    json!({
                        "slug": p.slug,
                        "name": p.name,
                        "is_public": p.is_public,
                        "has_password": p.has_password,
                        "role": if p.owner_id == me.principal.user_id { "owner" } else { "collaborator" },
                    })
                })
                .collect();
            let max = me.principal.plan.limits().max_projects.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
            d.render(
                &ctx,
                StatusCode::OK,
                "projects.html",
                "projects",
                json!({
                    "projects": projects,
                    "query": q,
                    "page": pager(listed.total, query.offset, PER_PAGE),
                    "usage": { "projects": usage.projects, "max_projects": max },
                }),
            )
        }
        (Err(e), _) | (_, Err(e)) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn new_form(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, _) = match d.signed_in(&headers, "/app/new").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    d.render(&ctx, StatusCode::OK, "project_new.html", "projects", json!({ "form": Form::default().view() }))
}

fn optional(value: &str) -> Option<String> {
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

pub(crate) async fn create(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let input = CreateProject {
        name: form.get("name").to_owned(),
        slug: optional(form.get("slug")),
        is_public: Some(form.checked("is_public")),
        base_url: optional(form.get("base_url")),
    };
    match d.hub.create_project(&me.principal, input, Source::Dashboard).await {
        Ok(project) => d.redirect_with(
            &format!("/app/p/{}", project.slug),
            "success",
            &format!("Project {} created. Push a spec to publish its docs.", project.name),
        ),
        Err(e @ (HubError::Validation { .. } | HubError::Conflict { .. } | HubError::ProjectLimitReached { .. })) => d
            .render(
                &ctx,
                StatusCode::UNPROCESSABLE_ENTITY,
                "project_new.html",
                "projects",
                json!({ "form": form.with_error(&e).view() }),
            ),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// What the caller's access lets the page offer; the use cases check again.
pub(crate) fn abilities(access: &ProjectAccess) -> Value {
    let a = access.access;
    json!({
        "push": a.may(Action::PushVersion),
        "update": a.may(Action::UpdateVersion),
        "delete": a.may(Action::DeleteVersion),
        "edit_project": a.may(Action::UpdateProject),
        "delete_project": a.may(Action::DeleteProject),
        "rotate": a.may(Action::RotateUploadToken),
    })
}

pub(crate) fn project_view(access: &ProjectAccess) -> Value {
    let p = &access.project;
    json!({
        "slug": p.slug,
        "name": p.name,
        "is_public": p.is_public,
        "base_url": p.base_url,
        "custom_domain": p.custom_domain,
        "has_password": p.has_password,
    })
}

fn version_view(v: &Version) -> Value {
    json!({
        "label": v.label,
        "title": v.title,
        "api_version": v.api_version,
        "operation_count": v.operation_count,
        "format": v.spec_format,
        "is_default": v.is_default,
        "is_active": v.is_active,
        "is_preview": v.is_preview,
        "pr_number": v.pr_number,
        "branch": v.branch,
        "commit_sha": v.commit_sha,
        "expires_at": v.expires_at.map(when),
        "created_at": when(v.created_at),
        "created_at_iso": v.created_at.to_rfc3339(),
    })
}

/// The project page with its versions; `form` carries an upload's errors.
async fn project_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, offset: u64, form: Option<Form>) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let page = PageRequest::clamped(Some(i64::from(PER_PAGE)), Some(offset));
    let versions = match d.hub.list_versions(&me.principal, slug, true, page).await {
        Ok(versions) => versions,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let status = if form.as_ref().is_some_and(|f| !f.errors.is_empty()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    d.render(
        ctx,
        status,
        "project.html",
        "projects",
        json!({
            "project": project_view(&access),
            "can": abilities(&access),
            "tab": "versions",
            "versions": versions.items.iter().map(version_view).collect::<Vec<_>>(),
            "page": pager(versions.total, offset, PER_PAGE),
            "form": form.unwrap_or_default().view(),
        }),
    )
}

pub(crate) async fn show(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(query): Query<ListQuery>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    project_page(&d, &ctx, &me, &slug, query.offset, None).await
}

#[derive(Deserialize, Default)]
pub(crate) struct CsrfQuery {
    #[serde(default)]
    csrf_token: String,
}

/// A spec pushed from the browser (multipart: `spec` file, `label`). The
/// session and the CSRF token (in the query, so it is checked before the
/// body) are checked before anything is read; the body streams within the
/// 50 MB spec limit.
pub(crate) async fn upload(
    State(d): Dash,
    Path(slug): Path<String>,
    Query(query): Query<CsrfQuery>,
    request: Request,
) -> Response {
    let headers = request.headers().clone();
    // The page's script uploads with XMLHttpRequest, which would follow a
    // redirect itself and use up the flash message: it gets the next
    // address in `X-Location` with a 200 instead.
    let scripted = headers.get("x-requested-with").is_some_and(|v| v == "XMLHttpRequest");
    let (ctx, me) =
        match d.upload_gate(&headers, &format!("/app/p/{slug}"), &query.csrf_token, &slug, Action::PushVersion).await {
            Ok(found) => found,
            Err(response) => return response,
        };
    let limit = hub_core::plans::fixed::MAX_SPEC_BYTES;
    let too_large = format!("the file is larger than the {} MB spec limit", limit / 1_000_000);
    let (label, body) = match super::read_upload(request, "spec", limit, &too_large).await {
        Ok(upload) => match (upload.text("label").to_owned(), upload.file) {
            (label, Some(bytes)) if !bytes.is_empty() => (label, bytes),
            _ => {
                let form = Form::default().with_message(Some("spec"), "Choose a spec file to upload.");
                return project_page(&d, &ctx, &me, &slug, 0, Some(form)).await;
            }
        },
        Err(message) => {
            let form = Form::default().with_message(Some("spec"), message);
            return project_page(&d, &ctx, &me, &slug, 0, Some(form)).await;
        }
    };
    let push = PushVersion {
        label: optional(&label),
        make_default: false,
        preview: false,
        pr: None,
        commit: None,
        branch: None,
        body: body.into(),
    };
    match d.hub.push_version(&me.principal, &slug, push, Source::Dashboard).await {
        Ok(outcome) => {
            let verb = if outcome.created { "added" } else { "replaced" };
            let mut response = d.redirect_with(
                &format!("/app/p/{slug}"),
                "success",
                &format!("Version {} {verb}: {} operations.", outcome.version.label, outcome.version.operation_count),
            );
            if scripted && let Some(next) = response.headers_mut().remove(header::LOCATION) {
                *response.status_mut() = StatusCode::OK;
                response.headers_mut().insert("x-location", next);
            }
            response
        }
        Err(
            e @ (HubError::Validation { .. }
            | HubError::InvalidSpec(_)
            | HubError::TooLarge { .. }
            | HubError::Conflict { .. }
            | HubError::PreviewLimitReached { .. }),
        ) => {
            let form = Form::default().with_message(Some("spec"), e.to_string());
            project_page(&d, &ctx, &me, &slug, 0, Some(form)).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn version_action(
    State(d): Dash,
    Path((slug, label, action)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let back = format!("/app/p/{slug}");
    let patch = match action.as_str() {
        "promote" => VersionPatch { is_default: Some(true), ..VersionPatch::default() },
        "deactivate" => VersionPatch { is_active: Some(false), ..VersionPatch::default() },
        "activate" => VersionPatch { is_active: Some(true), ..VersionPatch::default() },
        "delete" if form.get("confirm") == "yes" => {
            return match d.hub.delete_version(&me.principal, &slug, &label, Source::Dashboard).await {
                Ok(()) => d.redirect_with(&back, "success", &format!("Version {label} deleted.")),
                Err(e) => d.error_page(Some(&ctx), &e),
            };
        }
        "delete" => {
            // Ask first, after the gate: a viewer gets the refusal, not the question.
            if let Err(e) = d.hub.authorize_project(&me.principal, &slug, Action::DeleteVersion).await {
                return d.error_page(Some(&ctx), &e);
            }
            return d.render(
                &ctx,
                StatusCode::OK,
                "confirm.html",
                "projects",
                json!({
                    "heading": format!("Delete version {label}?"),
                    "text": "Its docs, mock and SDKs stop answering. This cannot be undone.",
                    "action": format!("/app/p/{slug}/versions/{label}/delete"),
                    "button": "Delete version",
                    "back": back,
                }),
            );
        }
        _ => return d.error_page(Some(&ctx), &HubError::not_found("action")),
    };
    match d.hub.update_version(&me.principal, &slug, &label, patch, Source::Dashboard).await {
        Ok(version) => {
            let text = match action.as_str() {
                "promote" => format!("Version {} is now the default.", version.label),
                "deactivate" => format!("Version {} is deactivated.", version.label),
                _ => format!("Version {} is active again.", version.label),
            };
            d.redirect_with(&back, "success", &text)
        }
        Err(e @ (HubError::Conflict { .. } | HubError::Validation { .. })) => {
            d.redirect_with(&back, "error", &e.to_string())
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn settings_page(
    d: &Dashboard,
    ctx: &Ctx,
    me: &Me,
    slug: &str,
    form: Option<Form>,
    shown: Option<NewToken>,
) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let form = form.unwrap_or_else(|| {
        let p = &access.project;
        let mut form = Form::default();
        form.values.insert("name".into(), p.name.clone());
        form.values.insert("base_url".into(), p.base_url.clone().unwrap_or_default());
        form.values.insert("custom_domain".into(), p.custom_domain.clone().unwrap_or_default());
        if p.is_public {
            form.values.insert("is_public".into(), "on".into());
        }
        form
    });
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let hub_host = d
        .web
        .public_url
        .split("://")
        .nth(1)
        .unwrap_or(&d.web.public_url)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    d.render(
        ctx,
        status,
        "project_settings.html",
        "projects",
        json!({
            "project": project_view(&access),
            "can": abilities(&access),
            "access": access.access.as_str(),
            "tab": "settings",
            "form": form.view(),
            "custom_domain_allowed": access.owner_plan.allows(Feature::CustomDomain),
            "hub_host": hub_host,
            "upload_token": match &shown { Some(NewToken::Upload(token)) => Some(token.as_str()), _ => None },
            "mcp_token": match &shown { Some(NewToken::Mcp(token)) => Some(token.as_str()), _ => None },
            "mcp_url": format!("{}/api/mcp/{slug}", d.web.public_url.trim_end_matches('/')),
        }),
    )
}

pub(crate) async fn settings(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/settings")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    settings_page(&d, &ctx, &me, &slug, None, None).await
}

pub(crate) async fn update(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let access = match d.hub.project_access(&me.principal, &slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let current = &access.project;
    // Only what changed is sent, so a plan gate on one field (the custom
    // domain) does not refuse a change of another.
    let name = form.get("name").trim();
    let base_url = optional(form.get("base_url"));
    let domain = optional(form.get("custom_domain"));
    let patch = ProjectPatch {
        name: (name != current.name).then(|| name.to_owned()),
        is_public: (form.checked("is_public") != current.is_public).then(|| form.checked("is_public")),
        base_url: (base_url != current.base_url).then_some(base_url),
        custom_domain: (form.values.contains_key("custom_domain") && domain != current.custom_domain).then_some(domain),
    };
    match d.hub.update_project(&me.principal, &slug, patch, Source::Dashboard).await {
        Ok(project) => d.redirect_with(&format!("/app/p/{}/settings", project.slug), "success", "Settings saved."),
        Err(e @ (HubError::Validation { .. } | HubError::Conflict { .. } | HubError::PlanRequired { .. })) => {
            let form = form.with_error(&e);
            settings_page(&d, &ctx, &me, &slug, Some(form), None).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn delete(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    if form.get("confirm").trim() != slug {
        if let Err(e) = d.hub.authorize_project(&me.principal, &slug, Action::DeleteProject).await {
            return d.error_page(Some(&ctx), &e);
        }
        let form = form.with_message(Some("confirm"), format!("Type {slug} to confirm the deletion."));
        return settings_page(&d, &ctx, &me, &slug, Some(form), None).await;
    }
    match d.hub.delete_project(&me.principal, &slug, Source::Dashboard).await {
        Ok(()) => d.redirect_with("/app", "success", &format!("Project {slug} deleted.")),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn rotate_upload_token(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.rotate_upload_token(&me.principal, &slug, Source::Dashboard).await {
        // Shown once, on this response: never in a redirect or a cookie.
        Ok(token) => settings_page(&d, &ctx, &me, &slug, None, Some(NewToken::Upload(token.expose().to_owned()))).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// A token just minted, shown once on the settings page.
enum NewToken {
    Upload(String),
    Mcp(String),
}

/// Mints a new MCP token for the project's MCP server; shown once.
pub(crate) async fn rotate_mcp_token(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.rotate_mcp_token(&me.principal, &slug, Source::Dashboard).await {
        // Shown once, on this response: never in a redirect or a cookie.
        Ok(token) => settings_page(&d, &ctx, &me, &slug, None, Some(NewToken::Mcp(token.expose().to_owned()))).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct DiffQuery {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

/// Labels of the project's versions, newest first (for the diff pickers).
async fn labels(d: &Dashboard, me: &Me, slug: &str) -> Result<Vec<String>, HubError> {
    let page = PageRequest::clamped(Some(i64::from(PageRequest::MAX_LIMIT)), Some(0));
    Ok(d.hub.list_versions(&me.principal, slug, true, page).await?.items.into_iter().map(|v| v.label).collect())
}

pub(crate) async fn diff(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(query): Query<DiffQuery>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/diff")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let access = match d.hub.project_access(&me.principal, &slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let labels = match labels(&d, &me, &slug).await {
        Ok(labels) => labels,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    // Defaults: the second newest against the newest.
    let to = if query.to.is_empty() { labels.first().cloned().unwrap_or_default() } else { query.to.clone() };
    let from = if query.from.is_empty() { labels.get(1).cloned().unwrap_or_default() } else { query.from.clone() };
    let mut page = json!({
        "project": project_view(&access),
        "can": abilities(&access),
        "tab": "diff",
        "labels": labels,
        "from": from,
        "to": to,
    });
    let asked = !query.from.is_empty() && !query.to.is_empty();
    if asked {
        match d.hub.diff_versions(&me.principal, &slug, &from, &to).await {
            Ok(result) => {
                if let Some(page) = page.as_object_mut() {
                    page.extend(diff_view(&result.report));
                }
            }
            Err(
                e @ (HubError::Validation { .. }
                | HubError::NotFound { .. }
                | HubError::PlanRequired { .. }
                | HubError::RateLimited { .. }
                | HubError::InvalidSpec(_)),
            ) => {
                if let Some(page) = page.as_object_mut() {
                    page.insert("form".into(), Form::default().with_error(&e).view());
                }
            }
            Err(e) => return d.error_page(Some(&ctx), &e),
        }
    }
    d.render(&ctx, StatusCode::OK, "diff.html", "projects", page)
}

/// The report grouped by kind, then by operation, with the semver advice.
fn diff_view(report: &diff::Report) -> serde_json::Map<String, Value> {
    let mut groups: Vec<Value> = Vec::new();
    for (kind, title) in
        [("breaking", "Breaking changes"), ("additive", "Additive changes"), ("cosmetic", "Cosmetic changes")]
    {
        let changes: Vec<&diff::Change> = report
            .changes
            .iter()
            .take(DIFF_CHANGES_SHOWN)
            .filter(|c| {
                serde_json::to_value(c.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).as_deref() == Some(kind)
            })
            .collect();
        if changes.is_empty() {
            continue;
        }
        let mut operations: Vec<(String, Vec<Value>)> = Vec::new();
        for change in &changes {
            let operation = change.operation.clone().unwrap_or_else(|| "Document".to_owned());
            let entry = json!({ "message": change.message, "location": change.location });
            match operations.iter_mut().find(|(name, _)| *name == operation) {
                Some((_, list)) => list.push(entry),
                None => operations.push((operation, vec![entry])),
            }
        }
        groups.push(json!({
            "kind": kind,
            "title": title,
            "count": changes.len(),
            "operations": operations.into_iter().map(|(operation, changes)| json!({ "operation": operation, "changes": changes })).collect::<Vec<_>>(),
        }));
    }
    let advice = match report.bump {
        diff::Bump::Major => "Clients may break: release it as a new major version.",
        diff::Bump::Minor => "Only additions: a minor release keeps clients working.",
        diff::Bump::Patch => "Nothing clients depend on changed: a patch release.",
    };
    let mut view = serde_json::Map::new();
    view.insert("report".into(), serde_json::to_value(report).unwrap_or(Value::Null));
    view.insert("groups".into(), Value::Array(groups));
    view.insert("advice".into(), Value::String(advice.to_owned()));
    view.insert("truncated".into(), Value::Bool(report.changes.len() > DIFF_CHANGES_SHOWN));
    view.insert("shown".into(), json!(DIFF_CHANGES_SHOWN));
    view
}

pub(crate) async fn diff_markdown(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(query): Query<DiffQuery>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/diff")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match d.hub.diff_versions(&me.principal, &slug, &query.from, &query.to).await {
        Ok(result) => {
            let title = format!("{slug}: {} → {}", result.from, result.to);
            let file =
                format!("attachment; filename=\"{slug}-{}-{}.md\"", sanitize(&result.from), sanitize(&result.to));
            (
                [
                    (header::CONTENT_TYPE, "text/markdown; charset=utf-8".to_owned()),
                    (header::CONTENT_DISPOSITION, file),
                ],
                result.report.to_markdown(&title),
            )
                .into_response()
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// A label as part of a file name.
fn sanitize(label: &str) -> String {
    label.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect()
}

pub(crate) async fn sdks(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/sdks")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let access = match d.hub.project_access(&me.principal, &slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let page = PageRequest::clamped(Some(1), Some(0));
    let has_default = match d.hub.list_versions(&me.principal, &slug, false, page).await {
        Ok(versions) => versions.total > 0,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    d.render(
        &ctx,
        StatusCode::OK,
        "sdks.html",
        "projects",
        json!({
            "project": project_view(&access),
            "can": abilities(&access),
            "tab": "sdks",
            "allowed": access.owner_plan.allows(Feature::Sdks),
            "has_default": has_default,
        }),
    )
}

pub(crate) async fn sdk_download(
    State(d): Dash,
    headers: HeaderMap,
    Path((slug, language)): Path<(String, String)>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/sdks")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let Some(language) = Language::parse(&language) else {
        return d.error_page(Some(&ctx), &HubError::not_found("language"));
    };
    match d.hub.generate_sdk(&me.principal, &slug, language, None).await {
        Ok(sdk) => (
            [
                (header::CONTENT_TYPE, sdk.language.media_type().to_owned()),
                (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{}\"", sdk.file_name)),
            ],
            sdk.source,
        )
            .into_response(),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_safe_file_names() {
        assert_eq!(sanitize("v1.2-beta"), "v1.2-beta");
        assert_eq!(sanitize("a/b\"c"), "a_b_c");
    }
}
