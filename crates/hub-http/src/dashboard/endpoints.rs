//! Owner-written markdown around each endpoint of the docs (the docs
//! builder's "Endpoint pages"): a filterable list of one version's
//! endpoints, an editor per endpoint with a live preview, and the save.

use std::collections::BTreeSet;

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::{HubError, Source, Version};
use kernel::PageRequest;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, encode};

/// Endpoints listed per page.
const PER_PAGE: usize = 50;

/// The preview's own policy: a sandboxed document (no script, an opaque
/// origin) that only this origin's pages may frame. Images may come from
/// https, as on the docs pages the markdown is written for.
const PREVIEW_CSP: &str =
    "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'";

#[derive(Deserialize, Default)]
pub(crate) struct EndpointQuery {
    #[serde(default)]
    version: String,
    #[serde(default)]
    endpoint: String,
    #[serde(default)]
    q: String,
    #[serde(default)]
    offset: usize,
}

/// The project's versions, and the one a page works on: the asked label,
/// else the default, else the newest.
async fn pick_version(
    d: &Dashboard,
    me: &Me,
    slug: &str,
    asked: &str,
) -> Result<(Vec<String>, Option<Version>), HubError> {
    let page = PageRequest::clamped(Some(i64::from(PageRequest::MAX_LIMIT)), Some(0));
    let versions = d.hub.list_versions(&me.principal, slug, true, page).await?.items;
    let labels = versions.iter().map(|v| v.label.clone()).collect();
    let chosen = versions
        .iter()
        .find(|v| v.label == asked)
        .or_else(|| versions.iter().find(|v| v.is_default))
        .or_else(|| versions.first())
        .cloned();
    if !asked.is_empty() && chosen.as_ref().is_none_or(|v| v.label != asked) {
        return Err(HubError::not_found("version"));
    }
    Ok((labels, chosen))
}

/// The endpoints of a version, `(key, summary)`, from the docs' own parse.
async fn endpoints_of(d: &Dashboard, version: &Version) -> Result<Vec<(String, String)>, HubError> {
    d.docs
        .endpoints(&version.spec_sha256)
        .await
        .map_err(|e| HubError::Internal(format!("the endpoints of version {} could not be read: {e:?}", version.label)))
}

/// Keys of the endpoints that carry markdown in `label`.
async fn annotated(d: &Dashboard, me: &Me, slug: &str, label: &str) -> Result<BTreeSet<String>, HubError> {
    Ok(d.hub.list_endpoint_markdown(&me.principal, slug, Some(label)).await?.into_iter().map(|m| m.endpoint).collect())
}

/// `GET /app/p/{slug}/docs/endpoints`: one version's endpoints, filterable,
/// those with markdown marked.
pub(crate) async fn list(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(query): Query<EndpointQuery>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/docs/endpoints")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match list_page(&d, &ctx, &me, &slug, &query).await {
        Ok(response) => response,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn list_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, query: &EndpointQuery) -> Result<Response, HubError> {
    let access = d.hub.project_access(&me.principal, slug).await?;
    let (labels, version) = pick_version(d, me, slug, &query.version).await?;
    let mut rows = Vec::new();
    let mut total = 0;
    let mut annotated_count = 0;
    if let Some(version) = &version {
        let notes = annotated(d, me, slug, &version.label).await?;
        annotated_count = notes.len();
        let needle = query.q.trim().to_lowercase();
        let matching: Vec<(String, String)> = endpoints_of(d, version)
            .await?
            .into_iter()
            .filter(|(key, summary)| {
                needle.is_empty() || key.to_lowercase().contains(&needle) || summary.to_lowercase().contains(&needle)
            })
            .collect();
        total = matching.len();
        rows = matching
            .into_iter()
            .skip(query.offset)
            .take(PER_PAGE)
            .map(|(key, summary)| {
                json!({
                    "has_notes": notes.contains(&key),
                    "href": format!("/app/p/{slug}/docs/endpoints/edit?version={}&endpoint={}", encode(&version.label), encode(&key)),
                    "key": key,
                    "summary": summary,
                })
            })
            .collect();
    }
    let offset = query.offset.min(total);
    let page = json!({
        "total": total,
        "limit": PER_PAGE,
        "first": if total == 0 { 0 } else { offset + 1 },
        "last": (offset + PER_PAGE).min(total),
        "prev": (offset > 0).then(|| offset.saturating_sub(PER_PAGE)),
        "next": (offset + PER_PAGE < total).then_some(offset + PER_PAGE),
    });
    Ok(d.render(
        ctx,
        StatusCode::OK,
        "project_endpoints.html",
        "projects",
        json!({
            "project": super::projects::project_view(&access),
            "can": super::projects::abilities(&access),
            "tab": "docs",
            "labels": labels,
            "version": version.as_ref().map(|v| v.label.clone()),
            "query": query.q.trim(),
            "rows": rows,
            "page": page,
            "annotated": annotated_count,
            "builder_allowed": access.owner_plan.allows(hub_core::Feature::DocsBuilder),
        }),
    ))
}

/// `GET /app/p/{slug}/docs/endpoints/edit?version=&endpoint=`: the editor.
pub(crate) async fn edit(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(query): Query<EndpointQuery>,
) -> Response {
    let back = format!(
        "/app/p/{slug}/docs/endpoints/edit?version={}&endpoint={}",
        encode(&query.version),
        encode(&query.endpoint)
    );
    let (ctx, me) = match d.signed_in(&headers, &back).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match edit_page(&d, &ctx, &me, &slug, &query.version, &query.endpoint, None).await {
        Ok(response) => response,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn edit_page(
    d: &Dashboard,
    ctx: &Ctx,
    me: &Me,
    slug: &str,
    label: &str,
    endpoint: &str,
    form: Option<Form>,
) -> Result<Response, HubError> {
    let access = d.hub.project_access(&me.principal, slug).await?;
    let (_, version) = pick_version(d, me, slug, label).await?;
    let version = version.ok_or_else(|| HubError::not_found("version"))?;
    let (key, summary) = endpoints_of(d, &version)
        .await?
        .into_iter()
        .find(|(key, _)| key == endpoint)
        .ok_or_else(|| HubError::not_found("endpoint"))?;
    let form = match form {
        Some(form) => form,
        None => {
            let stored = d
                .hub
                .list_endpoint_markdown(&me.principal, slug, Some(&version.label))
                .await?
                .into_iter()
                .find(|m| m.endpoint == key);
            let mut form = Form::default();
            form.values.insert("intro".into(), stored.as_ref().and_then(|m| m.intro.clone()).unwrap_or_default());
            form.values.insert("extras".into(), stored.and_then(|m| m.extras).unwrap_or_default());
            form
        }
    };
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    Ok(d.render(
        ctx,
        status,
        "endpoint_edit.html",
        "projects",
        json!({
            "project": super::projects::project_view(&access),
            "can": super::projects::abilities(&access),
            "tab": "docs",
            "version": version.label,
            "endpoint": key,
            "summary": summary,
            "form": form.view(),
            "back": format!("/app/p/{slug}/docs/endpoints?version={}", encode(&version.label)),
            "builder_allowed": access.owner_plan.allows(hub_core::Feature::DocsBuilder),
            "max_chars": hub_core::docs::MAX_ENDPOINT_MARKDOWN_CHARS,
        }),
    ))
}

fn text_or_null(value: &str) -> Value {
    if value.trim().is_empty() { Value::Null } else { Value::String(value.to_owned()) }
}

/// `POST /app/p/{slug}/docs/endpoints`: saves (or, both parts empty,
/// removes) one endpoint's markdown through the API's use case.
pub(crate) async fn save(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let (label, endpoint) = (form.get("version").to_owned(), form.get("endpoint").to_owned());
    let body = json!({
        "version": label,
        "endpoint": endpoint,
        "intro": text_or_null(form.get("intro")),
        "extras": text_or_null(form.get("extras")),
    });
    let edit = format!("/app/p/{slug}/docs/endpoints/edit?version={}&endpoint={}", encode(&label), encode(&endpoint));
    match d.hub.put_endpoint_markdown(&me.principal, &slug, &body, Source::Dashboard).await {
        Ok(Some(_)) => d.redirect_with(&edit, "success", "Saved: the docs page shows it now."),
        Ok(None) => d.redirect_with(&edit, "success", "Removed: the docs page shows the reference alone."),
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::PlanRequired { .. })) => {
            let form = form.with_error(&e);
            match edit_page(&d, &ctx, &me, &slug, &label, &endpoint, Some(form)).await {
                Ok(response) => response,
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// `POST /app/p/{slug}/docs/endpoints/preview`: the editor's unsaved
/// markdown rendered by the docs' own renderer (sanitised), as a sandboxed
/// document for the editor's preview frame. Works without JavaScript (the
/// Preview button targets the frame); the script submits it as you type.
pub(crate) async fn preview(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    // The same gate as the editor: someone who cannot see the project gets
    // nothing rendered under its name.
    if let Err(e) = d.hub.project_access(&me.principal, &slug).await {
        return d.error_page(None, &e);
    }
    let limit = hub_core::docs::MAX_ENDPOINT_MARKDOWN_CHARS;
    let part = |name: &str| {
        let text: String = form.get(name).chars().take(limit).collect();
        if text.trim().is_empty() { String::new() } else { docs_render::markdown::render(&text) }
    };
    let (intro, extras) = (part("intro"), part("extras"));
    let body = preview_document(&intro, &extras);
    let mut response = (StatusCode::OK, axum::response::Html(body)).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PREVIEW_CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The preview page around two sanitised fragments.
fn preview_document(intro: &str, extras: &str) -> String {
    let empty = "<p class=\"none\">Nothing here yet.</p>";
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Preview</title><style>{PREVIEW_STYLE}</style></head><body>\
         <h2 class=\"part\">Before the reference</h2><div class=\"md\">{}</div>\
         <p class=\"reference\">The generated reference: parameters, request body, responses.</p>\
         <h2 class=\"part\">After the reference</h2><div class=\"md\">{}</div></body></html>",
        if intro.is_empty() { empty } else { intro },
        if extras.is_empty() { empty } else { extras },
    )
}

const PREVIEW_STYLE: &str = "body{font:15px/1.55 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1rem;color:#1c1e21;background:#fff}\
a{color:#3b3bc4}img{max-width:100%}pre{overflow:auto;background:#f3f4f6;padding:.75rem;border-radius:6px}\
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace}table{border-collapse:collapse}td,th{border:1px solid #d0d4da;padding:.3rem .5rem}\
.part{font-size:.75rem;letter-spacing:.06em;text-transform:uppercase;color:#5b616b;margin:1.25rem 0 .25rem}\
.reference{border:1px dashed #b8bec8;border-radius:6px;padding:.75rem;color:#5b616b;margin:1rem 0}.none{color:#5b616b;font-style:italic}\
@media (prefers-color-scheme:dark){body{color:#e6e8eb;background:#16181d}a{color:#a5b4fc}pre{background:#23262d}\
td,th{border-color:#3a3f48}.part,.reference,.none{color:#a0a6b0}.reference{border-color:#4a505a}}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_shows_both_parts_and_says_when_one_is_empty() {
        let page = preview_document("<p>Hello</p>", "");
        assert!(page.contains("<div class=\"md\"><p>Hello</p></div>"));
        assert!(page.contains("Nothing here yet."));
        assert!(page.find("Before the reference") < page.find("After the reference"));
    }
}
