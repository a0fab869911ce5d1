//! The docs builder (branding, theme tokens, header, password, with the
//! real docs page as the preview) and the mock (settings, overrides, the
//! request log) of one project.

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::mock::ImportMode;
use hub_core::{Action, HubError, Source};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, override_form, when};

/// Request-log rows read for the filters, and shown.
const LOG_READ: u32 = 500;
const LOG_SHOWN: usize = 100;
/// An imported bundle: the API's JSON limit.
const MAX_BUNDLE_BYTES: usize = 2 * 1024 * 1024;

fn text_or_null(value: &str) -> Value {
    let value = value.trim();
    if value.is_empty() { Value::Null } else { Value::String(value.to_owned()) }
}

/// A palette from the form fields `<prefix>_<token>`, empty fields left out.
fn palette(form: &Form, prefix: &str) -> Value {
    let mut map = Map::new();
    for token in ["primary", "background", "foreground"] {
        let value = form.get(&format!("{prefix}_{token}")).trim();
        if !value.is_empty() {
            map.insert(token.to_owned(), Value::String(value.to_owned()));
        }
    }
    Value::Object(map)
}

/// The theme form as the use case's body.
fn theme_body(form: &Form) -> Value {
    let radius = match form.get("radius").trim() {
        "" => Value::Null,
        n => n.parse::<u64>().map_or_else(|_| Value::String(n.to_owned()), |n| json!(n)),
    };
    json!({
        "light": palette(form, "light"),
        "dark": palette(form, "dark"),
        "radius": radius,
        "lock": text_or_null(form.get("lock")),
    })
}

async fn docs_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, form: Option<Form>) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let (branding, theme, custom) = match (
        d.hub.branding(&me.principal, slug).await,
        d.hub.theme(&me.principal, slug).await,
        d.hub.customization(&me.principal, slug).await,
    ) {
        (Ok(b), Ok(t), Ok(c)) => (b, t, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        let mut put = |k: &str, v: Option<String>| {
            form.values.insert(k.to_owned(), v.unwrap_or_default());
        };
        put("logo_url", branding.logo_url.clone());
        put("accent_color", branding.accent_color.clone());
        put("favicon_url", branding.favicon_url.clone());
        if let Some(theme) = &theme {
            put("light_primary", theme.light.primary.clone());
            put("light_background", theme.light.background.clone());
            put("light_foreground", theme.light.foreground.clone());
            put("dark_primary", theme.dark.primary.clone());
            put("dark_background", theme.dark.background.clone());
            put("dark_foreground", theme.dark.foreground.clone());
            put("radius", theme.radius.map(|r| r.to_string()));
            put("lock", theme.lock.clone());
        }
        put("header_title", custom.header.title.clone());
        put("header_logo_url", custom.header.logo_url.clone());
        if custom.header.search {
            form.values.insert("header_search".into(), "on".into());
        }
        if custom.remove_watermark {
            form.values.insert("remove_watermark".into(), "on".into());
        }
        form
    });
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "project_docs.html",
        "projects",
        json!({
            "project": super::projects::project_view(&access),
            "can": super::projects::abilities(&access),
            "tab": "docs",
            "form": form.view(),
            "builder_allowed": access.owner_plan.allows(hub_core::Feature::DocsBuilder),
        }),
    )
}

pub(crate) async fn docs(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/docs")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    docs_page(&d, &ctx, &me, &slug, None).await
}

/// Saves one part of the docs builder: `branding`, `theme`, `header` or `password`.
pub(crate) async fn docs_save(
    State(d): Dash,
    Path((slug, part)): Path<(String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let p = &me.principal;
    let result: Result<&str, HubError> = match part.as_str() {
        "branding" => {
            let body = json!({
                "logo_url": text_or_null(form.get("logo_url")),
                "accent_color": text_or_null(form.get("accent_color")),
                "favicon_url": text_or_null(form.get("favicon_url")),
            });
            d.hub.update_branding(p, &slug, &body, Source::Dashboard).await.map(|_| "Branding saved.")
        }
        "theme" => d.hub.update_theme(p, &slug, &theme_body(&form), Source::Dashboard).await.map(|_| "Theme saved."),
        "header" => {
            let body = json!({
                "header": {
                    "title": text_or_null(form.get("header_title")),
                    "logo_url": text_or_null(form.get("header_logo_url")),
                    "search": form.checked("header_search"),
                },
                "remove_watermark": form.checked("remove_watermark"),
            });
            d.hub.update_customization(p, &slug, &body, Source::Dashboard).await.map(|_| "Header saved.")
        }
        "password" => {
            let password = form.get("docs_password");
            let clear = form.checked("clear_password");
            if !clear && password.is_empty() {
                Err(HubError::validation("docs_password", "type a password, or choose to remove it"))
            } else {
                d.hub
                    .set_docs_password(p, &slug, (!clear).then_some(password), Source::Dashboard)
                    .await
                    .map(|_| if clear { "The docs are open again." } else { "The docs now ask for the password." })
            }
        }
        _ => Err(HubError::not_found("setting")),
    };
    match result {
        Ok(message) => d.redirect_with(&format!("/app/p/{slug}/docs"), "success", message),
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::PlanRequired { .. })) => {
            docs_page(&d, &ctx, &me, &slug, Some(form.with_error(&dotted(e)))).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The live preview of unsaved theme tokens: the theme form, checked by
/// the same use case that saves it, answered as the docs page's theme
/// stylesheet (`{css, lock}`), which the builder's script puts into the
/// preview frame. Refusals are `{field, message}` with the use case's
/// status.
pub(crate) async fn theme_preview(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let mut response = match d.hub.preview_theme(&me.principal, &slug, &theme_body(&form)).await {
        Ok(theme) => {
            let css = docs_render::theme::css(&crate::docs_site::render_theme(&theme));
            axum::Json(json!({ "css": css, "lock": theme.lock })).into_response()
        }
        Err(e) => {
            let status = match &e {
                HubError::Validation { .. } | HubError::InvalidField { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                HubError::PlanRequired { .. } => StatusCode::PAYMENT_REQUIRED,
                HubError::Forbidden { .. } => StatusCode::FORBIDDEN,
                HubError::NotFound { .. } => StatusCode::NOT_FOUND,
                _ => return d.error_page(None, &e),
            };
            let (field, message) = match dotted(e) {
                HubError::InvalidField { field, message } => (Some(field), message),
                other => (None, other.to_string()),
            };
            (status, axum::Json(json!({ "field": field, "message": message }))).into_response()
        }
    };
    response.headers_mut().insert(header::CACHE_CONTROL, axum::http::HeaderValue::from_static("no-store"));
    response
}

/// A use case names nested fields with dots (`light.primary`); the form's
/// fields use underscores.
fn dotted(error: HubError) -> HubError {
    match error {
        HubError::InvalidField { field, message } => {
            let field = match field.as_str() {
                "header.title" => "header_title".to_owned(),
                "header.logo_url" => "header_logo_url".to_owned(),
                other => other.replace('.', "_"),
            };
            HubError::InvalidField { field, message }
        }
        other => other,
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct LogFilter {
    #[serde(default)]
    method: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    path: String,
}

async fn mock_page(d: &Dashboard, ctx: &Ctx, me: &Me, slug: &str, filter: &LogFilter, form: Option<Form>) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let (settings, overrides, log) = match (
        d.hub.get_mock_settings(&me.principal, slug).await,
        d.hub.list_mock_overrides(&me.principal, slug).await,
        d.hub.mock_requests(&me.principal, slug, LOG_READ, None).await,
    ) {
        (Ok(s), Ok(o), Ok(l)) => (s, o, l),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        let mut put = |k: &str, v: String| {
            form.values.insert(k.to_owned(), v);
        };
        put("latency_min", settings.latency_min_ms.to_string());
        put("latency_max", settings.latency_max_ms.to_string());
        put("chaos_rate", settings.chaos_error_rate.to_string());
        put("chaos_status", settings.chaos_status.to_string());
        put("disabled", settings.disabled_operations.join("\n"));
        if settings.validate_requests {
            put("validate", "on".into());
        }
        if settings.enforce_auth {
            put("enforce_auth", "on".into());
        }
        form
    });
    let rows: Vec<Value> = overrides
        .iter()
        .map(|o| {
            json!({
                "id": o.id,
                "name": o.spec.name,
                "enabled": o.spec.enabled,
                "priority": o.spec.priority,
                "method": o.spec.matcher.method,
                "path": o.spec.matcher.path,
                "status": o.spec.response.status,
            })
        })
        .collect();
    let method = filter.method.trim().to_ascii_uppercase();
    let path = filter.path.trim();
    let status: Option<i32> = filter.status.trim().parse().ok();
    let entries: Vec<Value> = log
        .iter()
        .filter(|e| method.is_empty() || e.method == method)
        .filter(|e| status.is_none_or(|s| e.status == s))
        .filter(|e| path.is_empty() || e.path.contains(path))
        .take(LOG_SHOWN)
        .map(|e| {
            json!({
                "at": when(kernel::Timestamp::from_millis(e.at)),
                "method": e.method,
                "path": if e.query.is_empty() { e.path.clone() } else { format!("{}?{}", e.path, e.query) },
                "status": e.status,
                "source": if e.override_id.is_some() { "override".to_owned() } else { e.synth.clone() },
                "version": e.version,
                "ms": format!("{:.1}", e.duration_us as f64 / 1000.0),
            })
        })
        .collect();
    let status_code = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status_code,
        "project_mock.html",
        "projects",
        json!({
            "project": super::projects::project_view(&access),
            "can": super::projects::abilities(&access),
            "tab": "mock",
            "form": form.view(),
            "mock_url": format!("{}/{}", d.web.mock_base(), slug),
            "overrides": rows,
            "override_limit": mock::overrides::MAX_OVERRIDES,
            "log": entries,
            "filter": { "method": method, "status": filter.status.trim(), "path": path },
        }),
    )
}

pub(crate) async fn mock(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(filter): Query<LogFilter>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/mock")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    mock_page(&d, &ctx, &me, &slug, &filter, None).await
}

fn number(form: &Form, name: &str) -> Value {
    let raw = form.get(name).trim();
    raw.parse::<u64>()
        .map(Value::from)
        .or_else(|_| raw.parse::<f64>().map(Value::from))
        .unwrap_or_else(|_| Value::String(raw.to_owned()))
}

pub(crate) async fn mock_settings(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let disabled: Vec<&str> = form.get("disabled").lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let patch = json!({
        "validateRequests": form.checked("validate"),
        "enforceAuth": form.checked("enforce_auth"),
        "latencyMinMs": number(&form, "latency_min"),
        "latencyMaxMs": number(&form, "latency_max"),
        "chaosErrorRate": number(&form, "chaos_rate"),
        "chaosStatus": number(&form, "chaos_status"),
        "disabledOperations": disabled,
    });
    match d.hub.update_mock_settings(&me.principal, &slug, &patch, Source::Dashboard).await {
        Ok(_) => d.redirect_with(&format!("/app/p/{slug}/mock"), "success", "Mock settings saved."),
        Err(HubError::InvalidField { field, message }) => {
            let name = match field.as_str() {
                "latencyMinMs" => "latency_min",
                "latencyMaxMs" => "latency_max",
                "chaosErrorRate" => "chaos_rate",
                "chaosStatus" => "chaos_status",
                "disabledOperations" => "disabled",
                _ => "",
            };
            let form = form.with_message((!name.is_empty()).then_some(name), message);
            mock_page(&d, &ctx, &me, &slug, &LogFilter::default(), Some(form)).await
        }
        Err(e @ HubError::Validation { .. }) => {
            mock_page(&d, &ctx, &me, &slug, &LogFilter::default(), Some(form.with_error(&e))).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The JSON of a new override, as a starting point to edit.
const OVERRIDE_TEMPLATE: &str = r#"{
  "name": "Out of stock",
  "enabled": true,
  "priority": 0,
  "matcher": { "method": "GET", "path": "/pets/{id}" },
  "response": { "status": 404, "body": { "message": "Pet {{request.path.id}} is out of stock" } }
}"#;

/// The override editor: a field per part, and the whole as JSON (open
/// when that is what was posted).
async fn override_page(
    d: &Dashboard,
    ctx: &Ctx,
    me: &Me,
    slug: &str,
    id: Option<&str>,
    form: Option<Form>,
) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let form = match form {
        Some(form) => form,
        None => match id {
            Some(id) => match d.hub.get_mock_override(&me.principal, slug, id).await {
                Ok(stored) => {
                    let mut form = override_form::to_fields(&stored.spec);
                    form.values.insert("json".into(), serde_json::to_string_pretty(&stored.spec).unwrap_or_default());
                    form
                }
                Err(e) => return d.error_page(Some(ctx), &e),
            },
            None => {
                let mut form = override_form::new_fields();
                form.values.insert("json".into(), OVERRIDE_TEMPLATE.to_owned());
                form
            }
        },
    };
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let action = match id {
        Some(id) => format!("/app/p/{slug}/mock/overrides/{id}"),
        None => format!("/app/p/{slug}/mock/overrides"),
    };
    d.render(
        ctx,
        status,
        "override_edit.html",
        "projects",
        json!({
            "project": super::projects::project_view(&access),
            "can": super::projects::abilities(&access),
            "tab": "mock",
            "json_open": form.get("mode") == "json",
            "form": form.view(),
            "id": id,
            "action": action,
            "methods": override_form::METHODS,
        }),
    )
}

pub(crate) async fn override_new(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/mock")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    override_page(&d, &ctx, &me, &slug, None, None).await
}

pub(crate) async fn override_edit(
    State(d): Dash,
    headers: HeaderMap,
    Path((slug, id)): Path<(String, String)>,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/mock")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    override_page(&d, &ctx, &me, &slug, Some(&id), None).await
}

/// Creates (no id) or replaces an override, from its fields or its JSON
/// (`mode=json`), through the API's use case.
pub(crate) async fn override_save(
    State(d): Dash,
    Path(params): Path<Vec<(String, String)>>,
    request: Request,
) -> Response {
    let slug = params.iter().find(|(k, _)| k == "slug").map(|(_, v)| v.clone()).unwrap_or_default();
    let id = params.iter().find(|(k, _)| k == "id").map(|(_, v)| v.clone());
    let Posted { ctx, me, mut form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let from_json = form.get("mode") == "json";
    let body: Value = if from_json {
        match serde_json::from_str::<Value>(form.get("json")) {
            Ok(body) => {
                // The fields follow the JSON when the page comes back.
                if let Ok(spec) = serde_json::from_value::<mock::overrides::OverrideSpec>(body.clone()) {
                    form.values.extend(override_form::to_fields(&spec).values);
                }
                body
            }
            Err(e) => {
                let form = form.with_message(Some("json"), format!("This is not valid JSON: {e}"));
                return override_page(&d, &ctx, &me, &slug, id.as_deref(), Some(form)).await;
            }
        }
    } else {
        match override_form::from_fields(&form) {
            Ok(body) => {
                form.values.insert("json".into(), serde_json::to_string_pretty(&body).unwrap_or_default());
                body
            }
            Err(e) => {
                let form = form.with_message(Some(e.field), e.message);
                return override_page(&d, &ctx, &me, &slug, id.as_deref(), Some(form)).await;
            }
        }
    };
    let saved = match &id {
        Some(id) => d.hub.update_mock_override(&me.principal, &slug, id, &body, Source::Dashboard).await,
        None => d.hub.create_mock_override(&me.principal, &slug, &body, Source::Dashboard).await,
    };
    match saved {
        Ok(stored) => d.redirect_with(
            &format!("/app/p/{slug}/mock"),
            "success",
            &format!(
                "Override {} saved.",
                if stored.spec.name.is_empty() { stored.id.as_str() } else { stored.spec.name.as_str() }
            ),
        ),
        Err(HubError::InvalidField { field, message }) => {
            let target = if from_json { Some("json") } else { override_form::form_field(&field) };
            let message = if target.is_some() && !from_json { message } else { format!("{field}: {message}") };
            override_page(&d, &ctx, &me, &slug, id.as_deref(), Some(form.with_message(target, message))).await
        }
        Err(e @ (HubError::Validation { .. } | HubError::MockOverrideLimit { .. })) => {
            let message = e.to_string();
            let target = from_json.then_some("json");
            override_page(&d, &ctx, &me, &slug, id.as_deref(), Some(form.with_message(target, message))).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// enable, disable, up, down (priority), duplicate, delete (asked first).
pub(crate) async fn override_action(
    State(d): Dash,
    Path((slug, id, action)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let back = format!("/app/p/{slug}/mock");
    let p = &me.principal;
    let result = match action.as_str() {
        "enable" | "disable" => d
            .hub
            .update_mock_override(p, &slug, &id, &json!({ "enabled": action == "enable" }), Source::Dashboard)
            .await
            .map(|o| format!("Override {} {}d.", o.spec.name, action)),
        "up" | "down" => match d.hub.get_mock_override(p, &slug, &id).await {
            Ok(current) => {
                let priority = if action == "up" {
                    current.spec.priority.saturating_sub(1)
                } else {
                    current.spec.priority.saturating_add(1)
                };
                d.hub
                    .update_mock_override(p, &slug, &id, &json!({ "priority": priority }), Source::Dashboard)
                    .await
                    .map(|o| format!("Override {} now has priority {}.", o.spec.name, o.spec.priority))
            }
            Err(e) => Err(e),
        },
        "duplicate" => d
            .hub
            .duplicate_mock_override(p, &slug, &id, Source::Dashboard)
            .await
            .map(|o| format!("Override duplicated as {}.", o.spec.name)),
        "delete" if form.get("confirm") == "yes" => {
            d.hub.delete_mock_override(p, &slug, &id, Source::Dashboard).await.map(|()| "Override deleted.".to_owned())
        }
        "delete" => {
            if let Err(e) = d.hub.authorize_project(p, &slug, Action::UpdateProject).await {
                return d.error_page(Some(&ctx), &e);
            }
            return d.render(
                &ctx,
                StatusCode::OK,
                "confirm.html",
                "projects",
                json!({
                    "heading": "Delete this override?",
                    "text": "The mock answers from the description again where it matched.",
                    "action": format!("/app/p/{slug}/mock/overrides/{id}/delete"),
                    "button": "Delete override",
                    "back": back,
                }),
            );
        }
        _ => Err(HubError::not_found("action")),
    };
    match result {
        Ok(message) => d.redirect_with(&back, "success", &message),
        Err(e @ (HubError::MockOverrideLimit { .. } | HubError::InvalidField { .. } | HubError::Validation { .. })) => {
            d.redirect_with(&back, "error", &e.to_string())
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn overrides_export(State(d): Dash, headers: HeaderMap, Path(slug): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/mock")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match d.hub.export_mock_overrides(&me.principal, &slug).await {
        Ok(bundle) => (
            [
                (header::CONTENT_TYPE, "application/json".to_owned()),
                (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{slug}-overrides.json\"")),
            ],
            serde_json::to_string_pretty(&bundle).unwrap_or_default(),
        )
            .into_response(),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct ImportQuery {
    #[serde(default)]
    pub(crate) csrf_token: String,
}

/// Imports a bundle file (multipart: `bundle`, `mode` merge or replace);
/// checked like the spec upload: session, CSRF token and gate first.
pub(crate) async fn overrides_import(
    State(d): Dash,
    Path(slug): Path<String>,
    Query(query): Query<ImportQuery>,
    request: Request,
) -> Response {
    let headers = request.headers().clone();
    let back = format!("/app/p/{slug}/mock");
    let (ctx, me) = match d.upload_gate(&headers, &back, &query.csrf_token, &slug, Action::UpdateProject).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let upload = match super::read_upload(request, "bundle", MAX_BUNDLE_BYTES, "The bundle is larger than 2 MiB.").await
    {
        Ok(upload) => upload,
        Err(message) => return d.redirect_with(&back, "error", &message),
    };
    let mode = if upload.text("mode") == "replace" { ImportMode::Replace } else { ImportMode::Merge };
    let Some(bytes) = upload.file.filter(|b| !b.is_empty()) else {
        return d.redirect_with(&back, "error", "Choose a bundle file (exported from a mock) to import.");
    };
    let Ok(bundle) = serde_json::from_slice::<Value>(&bytes) else {
        return d.redirect_with(&back, "error", "The bundle is not valid JSON.");
    };
    match d.hub.import_mock_overrides(&me.principal, &slug, &bundle, mode, Source::Dashboard).await {
        Ok(report) => d.redirect_with(
            &back,
            "success",
            &format!(
                "Imported {} overrides ({} skipped, {} headers dropped); the mock now has {}.",
                report.imported,
                report.skipped.len(),
                report.dropped_headers,
                report.total
            ),
        ),
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::MockOverrideLimit { .. })) => {
            d.redirect_with(&back, "error", &e.to_string())
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}
