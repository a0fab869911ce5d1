//! Webhooks (every plan): the workspace's webhooks, a new one whose
//! signing secret is shown once, a webhook's delivery log with a test
//! message, pausing and resuming, and deleting.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use courses_core::courses::ListRequest;
use courses_core::members::SignedIn;
use courses_core::resources::WEBHOOK_EVENTS;
use courses_core::{CoursesError, ListItem, Resource, ResourceKind};
use page_kit::Form;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_status, when_millis};
use crate::AppState;

/// Messages a webhook's page lists, newest first.
const LOG_LENGTH: u32 = 50;

fn view(hook: &Resource) -> Value {
    let events: Vec<&str> = hook
        .data
        .get("events")
        .and_then(Value::as_array)
        .map(|e| e.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    json!({
        "id": hook.id,
        "url": hook.data.get("url").and_then(Value::as_str).unwrap_or_default(),
        "events": events,
        "active": hook.data.get("active").and_then(Value::as_bool).unwrap_or(true),
    })
}

async fn webhooks_of(s: &AppState, me: &SignedIn) -> Result<Vec<Value>, CoursesError> {
    let mut rx = s.courses.list_resources(&me.access, ResourceKind::Webhook, ListRequest::new(Some(200), None))?;
    let mut hooks = Vec::new();
    while let Some(item) = rx.recv().await {
        match item {
            ListItem::Item(hook) => hooks.push(view(&hook)),
            ListItem::End { .. } => break,
            ListItem::Failed(e) => return Err(e.into()),
        }
    }
    Ok(hooks)
}

/// The list page; `secret` is a new webhook's, shown this once.
async fn list_page(s: &AppState, ctx: &Ctx, me: &SignedIn, form: &Form, secret: Option<(&str, &str)>) -> Response {
    let result = webhooks_of(s, me).await.map(|hooks| {
        let chosen: Vec<&str> = form.values.keys().filter_map(|k| k.strip_prefix("event_")).collect();
        let mut response = s.render(
            ctx,
            form_status(form),
            "webhooks.html",
            "webhooks",
            json!({
                "webhooks": hooks,
                "events": WEBHOOK_EVENTS.iter().map(|e| json!({ "name": e, "field": format!("event_{}", e.replace('.', "_")), "checked": form.values.is_empty() || chosen.contains(&e.replace('.', "_").as_str()) })).collect::<Vec<_>>(),
                "secret": secret.map(|(id, secret)| json!({ "id": id, "value": secret })),
                "form": form.view(),
            }),
        );
        if secret.is_some() {
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
        response
    });
    super::page_or_error(s, ctx, result)
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => list_page(&s, &ctx, &me, &Form::default(), None).await,
        Err(response) => response,
    }
}

/// A new webhook: its address and events; the page then shows its secret.
pub(super) async fn create(State(s): St, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let events: Vec<&str> = WEBHOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| p.form.values.contains_key(&format!("event_{}", e.replace('.', "_"))))
        .collect();
    let mut body = Map::new();
    body.insert("url".into(), json!(p.form.get("url").trim()));
    body.insert("events".into(), json!(events));
    match s.courses.create_resource(&p.me.access, ResourceKind::Webhook, &body).await {
        Ok((hook, Some(secret))) => {
            list_page(&s, &p.ctx, &p.me, &Form::default(), Some((hook.id.as_str(), secret.as_str()))).await
        }
        Ok((hook, None)) => s.redirect_with(&format!("/webhooks/{}", hook.id), "success", "Webhook created."),
        Err(e @ CoursesError::Invalid { .. }) => {
            // Events are checkboxes: their problem is shown at the first.
            let form = super::form_with_error_as(p.form, &e, &[("events", "event_course_published")]);
            list_page(&s, &p.ctx, &p.me, &form, None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// A webhook and its delivery log.
pub(super) async fn detail(State(s): St, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let result = async {
        let hook = s.courses.resource(&me.access, ResourceKind::Webhook, &id).await?;
        let log = s.courses.recent_deliveries(&me.access, &id, LOG_LENGTH).await?;
        let log: Vec<Value> = log
            .iter()
            .map(|d| {
                json!({
                    "id": d.id,
                    "event": d.event,
                    "status": d.status,
                    "attempts": d.attempts,
                    "response": d.response_status,
                    "error": d.last_error,
                    "created": when_millis(d.created_at.as_millis()),
                    "next": d.next_attempt_at.filter(|_| d.status == "pending").map(|t| when_millis(t.as_millis())),
                    "payload": d.payload,
                })
            })
            .collect();
        Ok::<_, CoursesError>(s.render(
            &ctx,
            axum::http::StatusCode::OK,
            "webhook.html",
            "webhooks",
            json!({ "hook": view(&hook), "log": log, "log_length": LOG_LENGTH }),
        ))
    }
    .await;
    super::page_or_error(&s, &ctx, result)
}

/// Test, pause, resume or delete.
pub(super) async fn action(State(s): St, Path((id, action)): Path<(String, String)>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let back = format!("/webhooks/{id}");
    let result = match action.as_str() {
        "test" => {
            s.courses.send_test_event(access, &id).await.map(|_| {
                s.redirect_with(&back, "success", "A webhook.test message is queued: its attempts show below.")
            })
        }
        "pause" | "resume" => {
            let mut body = Map::new();
            body.insert("active".into(), json!(action == "resume"));
            s.courses.update_resource(access, ResourceKind::Webhook, &id, &body).await.map(|_| {
                let text = if action == "resume" { "Webhook resumed." } else { "Webhook paused: its messages wait." };
                s.redirect_with(&back, "success", text)
            })
        }
        "delete" => s
            .courses
            .delete_resource(access, ResourceKind::Webhook, &id)
            .await
            .map(|()| s.redirect_with("/webhooks", "success", "Webhook deleted.")),
        _ => Err(CoursesError::not_found("webhook action")),
    };
    result.unwrap_or_else(|e| s.error_page(Some(&p.ctx), e))
}
