//! Webhook inboxes in the dashboard: the list with a new-inbox form, one
//! inbox's captures (searchable, live over server-sent events, each with
//! replay), its settings, and the browser-side signature verifier.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use hub_core::inboxes::{
    BasicInput, Capture, CaptureEvent, CaptureOverrideInput, Inbox, InboxInput, VerificationInput,
};
use hub_core::{HubError, Source};
use serde_json::{Value, json};
use webhook_signatures::SchemeName;

use super::{Ctx, Dash, Dashboard, Form, Me, Posted, when};

/// How often the live view looks for new captures, and how long one
/// stream lasts before the browser reconnects (EventSource does by itself).
const LIVE_POLL: Duration = Duration::from_secs(1);
const LIVE_FOR: Duration = Duration::from_secs(600);
/// Captures one page shows.
const PAGE: u32 = 50;

fn schemes() -> Vec<Value> {
    SchemeName::ALL.iter().map(|s| json!({ "value": s.as_str(), "label": s.label() })).collect()
}

fn inbox_view(d: &Dashboard, inbox: &Inbox) -> Value {
    let mut view = hub_core::inboxes::inbox_json(inbox, &crate::routes::inboxes::capture_url(&d.web, &inbox.id));
    if let Value::Object(map) = &mut view {
        let label = inbox.verification.as_ref().map(|v| v.scheme.name().label());
        map.insert("scheme_label".into(), json!(label));
        map.insert("created".into(), json!(when(inbox.created_at)));
    }
    view
}

fn capture_view(capture: &Capture, event: Option<&CaptureEvent>) -> Value {
    let mut view = hub_core::inboxes::capture_json(capture);
    if let Value::Object(map) = &mut view {
        map.insert("webhook".into(), event.map_or(Value::Null, hub_core::inboxes::capture_event_json));
        map.insert("when".into(), json!(when(capture.received_at)));
        let pretty =
            serde_json::from_slice::<Value>(&capture.body).ok().and_then(|v| serde_json::to_string_pretty(&v).ok());
        map.insert("pretty".into(), json!(pretty));
        map.insert("size".into(), json!(capture.body.len()));
    }
    view
}

/// The slugs of the projects an inbox may be linked to (the first page of
/// the caller's projects).
async fn project_choices(d: &Dashboard, me: &Me) -> Result<Vec<String>, HubError> {
    let page = kernel::PageRequest::clamped(Some(100), None);
    Ok(d.hub.list_projects(&me.principal, None, page).await?.items.into_iter().map(|p| p.slug).collect())
}

async fn list_page(d: &Dashboard, ctx: &Ctx, me: &Me, form: Form) -> Response {
    let (inboxes, projects) = match (d.hub.inboxes(&me.principal).await, project_choices(d, me).await) {
        (Ok(inboxes), Ok(projects)) => (inboxes, projects),
        (Err(e), _) | (_, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let limits = me.principal.plan.limits();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "inboxes.html",
        "inboxes",
        json!({
            "inboxes": inboxes.iter().map(|i| inbox_view(d, i)).collect::<Vec<_>>(),
            "schemes": schemes(),
            "projects": projects,
            "form": form.view(),
            "limit": limits.max_inboxes,
            "captures": limits.max_captures,
            "window": limits.capture_window_days,
        }),
    )
}

pub(crate) async fn list(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/inboxes").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    list_page(&d, &ctx, &me, Form::default()).await
}

/// The settings a form describes (the new-inbox form and the settings page
/// share their fields). An empty secret or password keeps the stored one.
fn input_of(form: &Form, with_state: bool) -> InboxInput {
    let scheme = form.get("scheme");
    let text = |name: &str| Some(form.get(name).trim().to_owned()).filter(|s| !s.is_empty());
    let verification = if scheme.is_empty() {
        Some(None)
    } else {
        Some(Some(VerificationInput {
            scheme: scheme.to_owned(),
            secret: Some(form.get("secret").to_owned()).filter(|s| !s.is_empty()),
            tolerance_secs: form.get("tolerance_secs").trim().parse().ok(),
            header: text("header"),
            algorithm: serde_json::from_value(json!(form.get("algorithm"))).ok(),
            encoding: serde_json::from_value(json!(form.get("encoding"))).ok(),
            prefix: Some(form.get("prefix").to_owned()),
            timestamp_header: text("timestamp_header"),
        }))
    };
    let basic_auth = match text("username") {
        Some(username) => Some(Some(BasicInput {
            username,
            password: Some(form.get("password").to_owned()).filter(|s| !s.is_empty()),
        })),
        None => Some(None),
    };
    let allow_ips = form
        .get("allow_ips")
        .split(['\n', ',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    InboxInput {
        name: text("name"),
        project: Some(text("project")),
        verification,
        basic_auth,
        allow_ips: Some(allow_ips),
        state: with_state.then(|| form.get("state").to_owned()).filter(|s| !s.is_empty()),
    }
}

/// A refusal shown beside the form field that caused it (the use case names
/// the API's field, `verification.secret`; the form's is `secret`).
fn with_inbox_error(form: Form, error: &HubError) -> Form {
    let field = match error {
        HubError::Validation { field: Some(field), .. } => Some(field.rsplit('.').next().unwrap_or(field).to_owned()),
        _ => None,
    };
    form.with_message(field.as_deref(), error.to_string())
}

pub(crate) async fn create(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.create_inbox(&me.principal, input_of(&form, false), Source::Dashboard).await {
        Ok(inbox) => d.redirect_with(
            &format!("/app/inboxes/{}", inbox.id),
            "success",
            "Inbox made. Point your sender at its capture URL.",
        ),
        Err(e @ (HubError::Validation { .. } | HubError::InboxLimitReached { .. })) => {
            list_page(&d, &ctx, &me, with_inbox_error(form, &e)).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// `?q=` and `?before=`, read leniently: a query string that does not
/// parse is no query at all.
#[derive(Default)]
pub(crate) struct CaptureQuery {
    q: Option<String>,
    before: Option<String>,
}

impl CaptureQuery {
    fn parse(raw: Option<&str>) -> Self {
        let mut query = Self::default();
        for (name, value) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            match name.as_ref() {
                "q" => query.q = Some(value.into_owned()).filter(|v| !v.trim().is_empty()),
                "before" => query.before = Some(value.into_owned()).filter(|v| !v.is_empty()),
                _ => {}
            }
        }
        query
    }
}

pub(crate) async fn inbox(
    State(d): Dash,
    headers: HeaderMap,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/inboxes/{id}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let query = CaptureQuery::parse(raw.as_deref());
    let found = d.hub.inbox(&me.principal, &id).await;
    let captures = d.hub.inbox_captures(&me.principal, &id, PAGE, query.before.as_deref(), query.q.as_deref()).await;
    let (inbox, captures) = match (found, captures) {
        (Ok(inbox), Ok(captures)) => (inbox, captures),
        (Err(e), _) | (_, Err(e)) => return d.error_page(Some(&ctx), &e),
    };
    let older = (captures.len() == PAGE as usize).then(|| captures.last().map(|c| c.id.clone())).flatten();
    let captures = match d.hub.classify_captures(&me.principal, &inbox, captures).await {
        Ok(read) => read,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    d.render(
        &ctx,
        StatusCode::OK,
        "inbox.html",
        "inboxes",
        json!({
            "inbox": inbox_view(&d, &inbox),
            "captures": captures.iter().map(|(c, event)| capture_view(c, event.as_ref())).collect::<Vec<_>>(),
            "q": query.q.unwrap_or_default(),
            "older": older,
            "paged": query.before.is_some(),
        }),
    )
}

async fn settings_page(d: &Dashboard, ctx: &Ctx, me: &Me, id: &str, form: Option<Form>) -> Response {
    let (inbox, projects) = match (d.hub.inbox(&me.principal, id).await, project_choices(d, me).await) {
        (Ok(inbox), Ok(projects)) => (inbox, projects),
        (Err(e), _) | (_, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let status = if form.as_ref().is_some_and(|f| !f.errors.is_empty()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        form.values.insert("name".into(), inbox.name.clone());
        form.values.insert("project".into(), inbox.project_slug.clone().unwrap_or_default());
        if let Some(v) = &inbox.verification {
            form.values.insert("scheme".into(), v.scheme.name().as_str().into());
            form.values.insert("tolerance_secs".into(), v.tolerance_secs.to_string());
            if let webhook_signatures::Scheme::Custom(custom) = &v.scheme {
                form.values.insert("header".into(), custom.header.clone());
                form.values.insert("prefix".into(), custom.prefix.clone());
                form.values.insert("timestamp_header".into(), custom.timestamp_header.clone().unwrap_or_default());
                let algorithm = serde_json::to_value(custom.algorithm).ok();
                let encoding = serde_json::to_value(custom.encoding).ok();
                form.values.insert(
                    "algorithm".into(),
                    algorithm.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                );
                form.values.insert(
                    "encoding".into(),
                    encoding.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                );
            }
        }
        form.values.insert("username".into(), inbox.basic_username.clone().unwrap_or_default());
        form.values.insert("allow_ips".into(), inbox.allow_ips.join("\n"));
        form
    });
    d.render(
        ctx,
        status,
        "inbox_settings.html",
        "inboxes",
        json!({ "inbox": inbox_view(d, &inbox), "schemes": schemes(), "projects": projects, "form": form.view() }),
    )
}

pub(crate) async fn settings(State(d): Dash, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/inboxes/{id}/settings")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    settings_page(&d, &ctx, &me, &id, None).await
}

/// Every change of one inbox: `settings`, `pause`, `resume`, `clear`,
/// `test`, `replay`, `override` (a capture made a mock override),
/// `forget` (one capture deleted) and `delete`.
pub(crate) async fn action(State(d): Dash, Path((id, action)): Path<(String, String)>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let back = format!("/app/inboxes/{id}");
    let p = &me.principal;
    let state = |s: &str| InboxInput { state: Some(s.to_owned()), ..InboxInput::default() };
    let result: Result<String, HubError> = match action.as_str() {
        "settings" => match d.hub.update_inbox(p, &id, input_of(&form, false), Source::Dashboard).await {
            Ok(_) => Ok("Settings saved.".into()),
            Err(e @ HubError::Validation { .. }) => {
                return settings_page(&d, &ctx, &me, &id, Some(with_inbox_error(form, &e))).await;
            }
            Err(e) => Err(e),
        },
        "pause" => d
            .hub
            .update_inbox(p, &id, state("paused"), Source::Dashboard)
            .await
            .map(|_| "Paused: senders are asked to retry later, and nothing is stored.".into()),
        "resume" => d.hub.update_inbox(p, &id, state("live"), Source::Dashboard).await.map(|_| "Live again.".into()),
        "clear" => d
            .hub
            .clear_inbox(p, &id, Source::Dashboard)
            .await
            .map(|n| format!("{n} captures removed. They still count against your plan's window.")),
        "test" => {
            let url = Some(form.get("url").trim()).filter(|u| !u.is_empty());
            d.hub.send_inbox_test(p, &id, url).await.map(|(status, ms, error)| delivery_text(status, ms, error))
        }
        "replay" => {
            let capture = form.get("capture").to_owned();
            d.hub
                .replay_capture(p, &id, &capture, form.get("url"))
                .await
                .map(|(status, ms, error)| delivery_text(status, ms, error))
        }
        "override" => {
            let text = |name: &str| Some(form.get(name).trim().to_owned()).filter(|s| !s.is_empty());
            let status = match text("status").map(|s| s.parse::<u16>()) {
                Some(Ok(status)) => Some(status),
                Some(Err(_)) => return d.redirect_with(&back, "error", "The status is a number from 100 to 599."),
                None => None,
            };
            let input = CaptureOverrideInput { name: None, method: text("method"), path: text("path"), status };
            return match d.hub.capture_to_override(p, &id, form.get("capture"), &input, Source::Dashboard).await {
                Ok(made) => {
                    let slug = d.hub.inbox(p, &id).await.ok().and_then(|i| i.project_slug).unwrap_or_default();
                    d.redirect_with(
                        &format!("/app/p/{slug}/mock/overrides/{}", made.id),
                        "success",
                        "Override made from the capture: the mock now answers this request with its body.",
                    )
                }
                Err(e @ (HubError::InvalidField { .. } | HubError::Validation { .. } | HubError::Conflict { .. })) => {
                    d.redirect_with(&back, "error", &e.to_string())
                }
                Err(e) => d.error_page(Some(&ctx), &e),
            };
        }
        "request" => {
            return match d.hub.capture_to_request(p, &id, form.get("capture"), Source::Dashboard).await {
                Ok(saved) => {
                    let slug = d.hub.inbox(p, &id).await.ok().and_then(|i| i.project_slug).unwrap_or_default();
                    d.redirect_with(
                        &format!("/app/p/{slug}/requests/{}", saved.id),
                        "success",
                        "Saved as a request. Give it a {{receiver}} in an environment to send it there.",
                    )
                }
                Err(e @ (HubError::InvalidField { .. } | HubError::Validation { .. } | HubError::Conflict { .. })) => {
                    d.redirect_with(&back, "error", &e.to_string())
                }
                Err(e) => d.error_page(Some(&ctx), &e),
            };
        }
        "forget" => d
            .hub
            .delete_capture(p, &id, form.get("capture"), Source::Dashboard)
            .await
            .map(|()| "Capture deleted. It still counts against your plan's window.".into()),
        "delete" => {
            let named = d.hub.inbox(p, &id).await.map(|i| i.name == form.get("confirm").trim());
            if let Ok(false) = named {
                return d.redirect_with(&format!("{back}/settings"), "error", "Type the inbox's name to delete it.");
            }
            return match d.hub.delete_inbox(p, &id, Source::Dashboard).await {
                Ok(()) => d.redirect_with("/app/inboxes", "success", "Inbox deleted."),
                Err(e) => d.error_page(Some(&ctx), &e),
            };
        }
        _ => Err(HubError::not_found("action")),
    };
    match result {
        Ok(text) => d.redirect_with(&back, "success", &text),
        Err(e @ HubError::Validation { .. }) => d.redirect_with(&back, "error", &e.to_string()),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

fn delivery_text(status: Option<u16>, ms: i64, error: Option<String>) -> String {
    match (status, error) {
        (Some(status), _) => format!("Sent: the receiver answered {status} in {ms} ms."),
        (None, Some(error)) => format!("Not delivered: {error}"),
        (None, None) => "Not delivered.".to_owned(),
    }
}

/// The settings form posts to its own page's address.
pub(crate) async fn action_settings(state: Dash, Path(id): Path<String>, request: Request) -> Response {
    action(state, Path((id, "settings".to_owned())), request).await
}

/// Server-sent events for the inbox page: `capture` with the newest
/// capture's id whenever it changes. The page then fetches its list again.
/// Polls the store, so a capture taken by any node of a deployment shows.
pub(crate) async fn live(State(d): Dash, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/inboxes/{id}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let newest = |d: std::sync::Arc<Dashboard>, me: hub_core::Principal, id: String| async move {
        d.hub.inbox_captures(&me, &id, 1, None, None).await.map(|c| c.first().map(|c| c.id.clone()))
    };
    let first = match newest(d.clone(), me.principal.clone(), id.clone()).await {
        Ok(first) => first,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let started = tokio::time::Instant::now();
    let principal = me.principal.clone();
    let stream = futures_util::stream::unfold((first, d, principal, id), move |(last, d, principal, id)| async move {
        loop {
            if started.elapsed() > LIVE_FOR {
                return None;
            }
            tokio::time::sleep(LIVE_POLL).await;
            let Ok(now) = newest(d.clone(), principal.clone(), id.clone()).await else { return None };
            if now != last {
                let event = Event::default().event("capture").data(now.clone().unwrap_or_default());
                return Some((Ok::<_, Infallible>(event), (now, d, principal, id)));
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

pub(crate) async fn verifier(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, _) = match d.signed_in(&headers, "/app/inboxes/verify").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    d.render(&ctx, StatusCode::OK, "inbox_verify.html", "inboxes", json!({ "schemes": schemes() }))
}

/// The templates of this module, for `pages()`.
pub(crate) const TEMPLATES: [(&str, &str); 4] = [
    ("inboxes.html", include_str!("../../templates/dashboard/inboxes.html")),
    ("inbox.html", include_str!("../../templates/dashboard/inbox.html")),
    ("inbox_settings.html", include_str!("../../templates/dashboard/inbox_settings.html")),
    ("inbox_verify.html", include_str!("../../templates/dashboard/inbox_verify.html")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_become_settings() {
        let mut form = Form::default();
        for (name, value) in [
            ("name", " Payments "),
            ("scheme", "custom"),
            ("secret", "s3cret"),
            ("header", "X-Sig"),
            ("algorithm", "sha512"),
            ("encoding", "base64"),
            ("username", ""),
            ("allow_ips", "203.0.113.0/24\n 2001:db8::/32 ,"),
        ] {
            form.values.insert(name.into(), value.into());
        }
        let input = input_of(&form, false);
        assert_eq!(input.name.as_deref(), Some("Payments"));
        let verification = input.verification.flatten().unwrap_or_default();
        assert_eq!(verification.algorithm, Some(webhook_signatures::Algorithm::Sha512));
        assert_eq!(verification.encoding, Some(webhook_signatures::Encoding::Base64));
        assert!(matches!(input.basic_auth, Some(None)), "no user name: no Basic check");
        assert_eq!(input.allow_ips, Some(vec!["203.0.113.0/24".to_owned(), "2001:db8::/32".to_owned()]));
        // An empty secret keeps the stored one.
        form.values.insert("secret".into(), String::new());
        assert_eq!(input_of(&form, false).verification.flatten().unwrap_or_default().secret, None);
    }
}
