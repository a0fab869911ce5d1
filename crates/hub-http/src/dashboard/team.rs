//! The team (collaborators, invitations, seats, the accounts one belongs
//! to), invitation links, per-project overrides, and the audit log's
//! viewer, export and settings.

use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use futures_util::StreamExt as _;
use hub_core::audit_log::{AuditFilter, RETENTION_WINDOWS, SettingsPatch};
use hub_core::sessions::ClientInfo;
use hub_core::team::MemberStatus;
use hub_core::{HubError, Role, Source};
use kernel::{PageRequest, Secret};
use serde_json::{Value, json};

use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, SESSION_COOKIE, client_ip, read_form, when};

const ROLES: [(&str, &str); 3] =
    [("editor", "Editor"), ("viewer", "Viewer"), ("none", "None (only projects opened to them)")];
const PAGE_SIZE: u32 = 25;

fn role_options() -> Vec<Value> {
    ROLES.iter().map(|(value, label)| json!({ "value": value, "label": label })).collect()
}

async fn team_page(d: &Dashboard, ctx: &Ctx, me: &Me, form: Form) -> Response {
    let (team, memberships) = match (d.hub.team(&me.principal).await, d.hub.memberships(&me.principal).await) {
        (Ok(team), Ok(memberships)) => (team, memberships),
        (Err(e), _) | (_, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let used = team.seats_used();
    let members: Vec<Value> = team
        .members
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "email": m.email,
                "role": m.role.as_str(),
                "pending": m.status == MemberStatus::Pending,
                "since": when(m.created_at),
                "expires": m.expires_at.map(when),
            })
        })
        .collect();
    let belongs: Vec<Value> = memberships
        .iter()
        .map(|m| json!({ "account": m.account_user_id, "owner": m.owner_email, "role": m.role.as_str(), "since": when(m.since) }))
        .collect();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "team.html",
        "team",
        json!({
            "members": members,
            "memberships": belongs,
            "seats": team.seats,
            "used": used,
            "full": used >= usize::try_from(team.seats).unwrap_or(usize::MAX),
            "layers": team.plan.allows(hub_core::Feature::RoleLayers),
            "roles": role_options(),
            "form": form.view(),
        }),
    )
}

pub(crate) async fn team(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/team").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut form = Form::default();
    form.values.insert("role".into(), "editor".into());
    team_page(&d, &ctx, &me, form).await
}

fn parse_role(text: &str) -> Option<Role> {
    text.parse().ok()
}

pub(crate) async fn invite(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let Some(role) = parse_role(form.get("role")) else {
        let form = form.with_message(Some("role"), "Choose a role from the list.");
        return team_page(&d, &ctx, &me, form).await;
    };
    match d.hub.invite_collaborator(&me.principal, form.get("email"), role, Source::Dashboard).await {
        Ok(invited) => d.redirect_with("/app/team", "success", &format!("Invitation sent to {}.", invited.email)),
        Err(e @ (HubError::Validation { .. } | HubError::Conflict { .. } | HubError::SeatLimitReached { .. })) => {
            let field = if matches!(e, HubError::SeatLimitReached { .. }) { None } else { Some("email") };
            let form = form.with_message(field, e.to_string());
            team_page(&d, &ctx, &me, form).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn member_action(
    State(d): Dash,
    Path((id, action)): Path<(String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let result = match action.as_str() {
        "role" => match parse_role(form.get("role")) {
            Some(role) => d
                .hub
                .set_collaborator_role(&me.principal, &id, role, Source::Dashboard)
                .await
                .map(|m| format!("{} is now {}.", m.email, m.role)),
            None => Err(HubError::validation("role", "choose a role from the list")),
        },
        "remove" => {
            d.hub.remove_collaborator(&me.principal, &id, Source::Dashboard).await.map(|()| "Removed.".to_owned())
        }
        _ => Err(HubError::not_found("action")),
    };
    match result {
        Ok(message) => d.redirect_with("/app/team", "success", &message),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn leave(State(d): Dash, Path(account): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.leave_account(&me.principal, &account, Source::Dashboard).await {
        Ok(()) => d.redirect_with("/app/team", "success", "You left that account's projects."),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// `/app/invitations/<secret>`: what the link offers, for whoever opens it.
pub(crate) async fn invitation(State(d): Dash, Path(secret): Path<String>, headers: HeaderMap) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    invitation_page(&d, &ctx, &secret, Form::default()).await
}

async fn invitation_page(d: &Dashboard, ctx: &Ctx, secret: &str, form: Form) -> Response {
    let view = match d.hub.invitation(secret).await {
        Ok(view) => view,
        Err(e) => {
            return d.render(
                ctx,
                StatusCode::NOT_FOUND,
                "error.html",
                "",
                json!({ "heading": "This invitation cannot be used", "message": e.to_string() }),
            );
        }
    };
    let signed_in_as = ctx.me.as_ref().map(|me| me.principal.email.clone());
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "invitation.html",
        "",
        json!({
            "secret": secret,
            "owner": view.owner_email,
            "email": view.email,
            "role": view.role.as_str(),
            "expires": when(view.expires_at),
            "has_account": view.has_account,
            "is_invitee": signed_in_as.as_deref().is_some_and(|e| e.eq_ignore_ascii_case(&view.email)),
            "signed_in_as": signed_in_as,
            "next": format!("/app/invitations/{secret}"),
            "form": form.view(),
        }),
    )
}

/// Accept (signed in as the invitee), decline, or sign up through the link.
pub(crate) async fn invitation_action(
    State(d): Dash,
    Path((secret, action)): Path<(String, String)>,
    request: Request,
) -> Response {
    let (headers, peer, form) = match read_form(request).await {
        Ok(parts) => parts,
        Err(response) => return response,
    };
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    if let Err(response) = d.check_csrf(&headers, Some(form.get(platform::web::CSRF_FIELD))) {
        return response;
    }
    match action.as_str() {
        "accept" => {
            let Some(me) = ctx.me.clone() else {
                return Redirect::to(&format!("/app/signin?next=/app/invitations/{secret}")).into_response();
            };
            match d.hub.accept_invitation(&me.principal, &secret, Source::Dashboard).await {
                Ok(m) => d.redirect_with("/app", "success", &format!("You joined the projects of {}.", m.owner_email)),
                Err(e @ HubError::Validation { .. }) => {
                    invitation_page(&d, &ctx, &secret, Form::default().with_error(&e)).await
                }
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        "decline" => match d.hub.decline_invitation(&secret).await {
            Ok(()) => d.redirect_with("/app/signin", "info", "Invitation declined."),
            Err(e) => d.error_page(Some(&ctx), &e),
        },
        "signup" => {
            let ip = client_ip(&d.web, &headers, peer.as_ref());
            if let Err(wait) = d.signins.check(ip, "invitation").await {
                return super::auth::throttled(&d, wait.secs);
            }
            let client = ClientInfo {
                user_agent: headers
                    .get(header::USER_AGENT)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned(),
                ip: ip.map(|ip| ip.to_string()).unwrap_or_default(),
            };
            let password = Secret::new(form.get("password").to_owned());
            match d.hub.sign_up_by_invitation(&secret, &password, client).await {
                Ok((_, session)) => {
                    let max_age = (session.info.expires_at.as_millis() - session.info.created_at.as_millis()) / 1000;
                    let mut response =
                        d.redirect_with("/app", "success", "Welcome: your account is ready and you joined the team.");
                    let cookie = d.web.cookies.set(SESSION_COOKIE, session.secret.expose(), max_age);
                    if let Ok(value) = HeaderValue::from_str(&cookie) {
                        response.headers_mut().append(header::SET_COOKIE, value);
                    }
                    response
                }
                Err(e @ HubError::Validation { .. }) => invitation_page(&d, &ctx, &secret, form.with_error(&e)).await,
                Err(e) => d.error_page(Some(&ctx), &e),
            }
        }
        _ => d.error_page(Some(&ctx), &HubError::not_found("action")),
    }
}

/// A project's overrides (layer 2), on its settings page's own screen.
pub(crate) async fn project_access(State(d): Dash, Path(slug): Path<String>, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/access")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let found = match d.hub.project_access(&me.principal, &slug).await {
        Ok(found) => found,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let (overrides, team) = match (d.hub.project_overrides(&me.principal, &slug).await, d.hub.team(&me.principal).await)
    {
        (Ok(o), Ok(t)) => (o, t),
        (Err(e), _) | (_, Err(e)) => return d.error_page(Some(&ctx), &e),
    };
    let rows: Vec<Value> = team
        .members
        .iter()
        .filter(|m| m.status == MemberStatus::Active)
        .map(|m| {
            let set = overrides.iter().find(|o| o.user_id == m.id).map(|o| o.role.as_str());
            json!({ "id": m.id, "email": m.email, "default": m.role.as_str(), "override": set.unwrap_or("default") })
        })
        .collect();
    d.render(
        &ctx,
        StatusCode::OK,
        "project_access.html",
        "projects",
        json!({
            "project": { "slug": found.project.slug, "name": found.project.name },
            "tab": "access",
            "rows": rows,
            "roles": role_options(),
            "layers": found.owner_plan.allows(hub_core::Feature::RoleLayers),
        }),
    )
}

pub(crate) async fn set_project_access(
    State(d): Dash,
    Path((slug, id)): Path<(String, String)>,
    request: Request,
) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let role = match form.get("role") {
        "default" => None,
        other => match parse_role(other) {
            Some(role) => Some(role),
            None => return d.error_page(Some(&ctx), &HubError::validation("role", "choose a role from the list")),
        },
    };
    match d.hub.set_project_override(&me.principal, &slug, &id, role, Source::Dashboard).await {
        Ok(()) => d.redirect_with(&format!("/app/p/{slug}/access"), "success", "Access saved."),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The viewer's query: the API's filters and a page number.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct AuditQuery {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    actor: String,
    #[serde(default)]
    project: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    q: String,
    #[serde(default)]
    offset: Option<u64>,
}

impl AuditQuery {
    fn filter(&self) -> Result<AuditFilter, HubError> {
        let instant = |name: &'static str, text: &str, end_of_day: bool| -> Result<_, HubError> {
            if text.trim().is_empty() {
                return Ok(None);
            }
            let at = crate::routes::audit::parse_instant(text)
                .ok_or_else(|| HubError::validation(name, "a date such as 2026-11-26"))?;
            // A bare date as the end of a range means the whole day.
            let whole_day = end_of_day && text.trim().len() == 10;
            Ok(Some(if whole_day { at.plus_millis(86_400_000 - 1) } else { at }))
        };
        let category = match self.category.trim() {
            "" => None,
            c => Some(c.parse().map_err(|m: String| HubError::validation("category", m))?),
        };
        let text = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
        Ok(AuditFilter {
            from: instant("from", &self.from, false)?,
            to: instant("to", &self.to, true)?,
            actor: text(&self.actor),
            project: text(&self.project),
            category,
            q: text(&self.q),
        })
    }

    /// The filters as a query string (for the pager and the export link).
    fn query_string(&self) -> String {
        serde_urlencoded::to_string([
            ("from", &self.from),
            ("to", &self.to),
            ("actor", &self.actor),
            ("project", &self.project),
            ("category", &self.category),
            ("q", &self.q),
        ])
        .unwrap_or_default()
    }
}

pub(crate) async fn audit(State(d): Dash, Query(query): Query<AuditQuery>, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/audit").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut form = Form::default();
    for (name, value) in [
        ("from", &query.from),
        ("to", &query.to),
        ("actor", &query.actor),
        ("project", &query.project),
        ("category", &query.category),
        ("q", &query.q),
    ] {
        form.values.insert(name.to_owned(), value.clone());
    }
    let filter = match query.filter() {
        Ok(filter) => filter,
        Err(e) => {
            let form = form.with_error(&e);
            return render_audit(&d, &ctx, &query, form, Value::Null);
        }
    };
    let offset = query.offset.unwrap_or(0);
    let request = PageRequest::clamped(Some(i64::from(PAGE_SIZE)), Some(offset));
    match d.hub.audit_log_page(&me.principal, &filter, request).await {
        Ok(page) => {
            let ids: Vec<String> = page.items.iter().map(|e| e.actor_user_id.clone()).collect();
            let names = d.hub.user_emails(&ids).await.unwrap_or_default();
            let rows: Vec<Value> = page
                .items
                .iter()
                .map(|e| {
                    json!({
                        "when": when(e.created_at),
                        "at": e.created_at.to_rfc3339(),
                        "action": e.action,
                        "actor": names.get(&e.actor_user_id).unwrap_or(&e.actor_user_id),
                        "target": format!("{} {}", e.target_type, e.target_id),
                        "metadata": details(&e.metadata),
                    })
                })
                .collect();
            let pager = page_kit::pager::pager(page.total, offset, PAGE_SIZE);
            let base = format!("/app/audit?{}&", query.query_string());
            render_audit(
                &d,
                &ctx,
                &query,
                form,
                json!({ "rows": rows, "total": page.total, "page": pager, "base": base }),
            )
        }
        Err(e @ HubError::Validation { .. }) => render_audit(&d, &ctx, &query, form.with_error(&e), Value::Null),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// A row's metadata as `key: value` pairs for people to read.
fn details(metadata: &Value) -> String {
    let Some(map) = metadata.as_object() else { return metadata.to_string() };
    map.iter()
        .map(|(key, value)| match value {
            Value::String(text) => format!("{key}: {text}"),
            other => format!("{key}: {other}"),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn render_audit(d: &Dashboard, ctx: &Ctx, query: &AuditQuery, form: Form, result: Value) -> Response {
    let categories: Vec<&str> = hub_core::audit::Category::ALL.iter().map(|c| c.as_str()).collect();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "audit.html",
        "audit",
        json!({
            "form": form.view(),
            "categories": categories,
            "result": result,
            "export": format!("/app/audit/export.csv?{}", query.query_string()),
        }),
    )
}

/// The export with the viewer's filters, for a signed-in browser.
pub(crate) async fn audit_export(State(d): Dash, Query(query): Query<AuditQuery>, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/audit").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let filter = match query.filter() {
        Ok(filter) => filter,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    match d.hub.audit_csv(&me.principal, &filter).await {
        Ok(stream) => {
            let body = Body::from_stream(stream.map(|chunk| chunk.map_err(|e| std::io::Error::other(e.to_string()))));
            let mut response = body.into_response();
            let h = response.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8; header=present"));
            h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"audit.csv\""));
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn settings_page(
    d: &Dashboard,
    ctx: &Ctx,
    me: &Me,
    form: Option<Form>,
    secret: Option<String>,
    test: Option<Value>,
) -> Response {
    let (settings, deliveries) = match d.hub.audit_settings(&me.principal).await {
        Ok(settings) => {
            let deliveries = d.hub.audit_deliveries(&me.principal, 25).await.unwrap_or_default();
            (settings, deliveries)
        }
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        form.values.insert("retention_days".into(), settings.retention_days.to_string());
        form.values.insert("webhook_url".into(), settings.webhook_url.clone().unwrap_or_default());
        form.values.insert("chat_webhook_url".into(), settings.chat_webhook_url.clone().unwrap_or_default());
        form
    });
    let windows: Vec<Value> =
        RETENTION_WINDOWS.iter().map(|(days, label)| json!({ "value": days.to_string(), "label": label })).collect();
    let log: Vec<Value> = deliveries
        .iter()
        .map(|l| {
            json!({
                "when": when(l.attempted_at),
                "action": l.action,
                "delivery": l.delivery_id,
                "status": l.status,
                "ok": l.error.is_none(),
                "latency": l.latency_ms,
                "error": l.error,
            })
        })
        .collect();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "audit_settings.html",
        "audit",
        json!({
            "form": form.view(),
            "windows": windows,
            "has_webhook": settings.webhook_url.is_some(),
            "secret": secret,
            "test": test,
            "deliveries": log,
        }),
    )
}

pub(crate) async fn audit_settings(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/audit/settings").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    settings_page(&d, &ctx, &me, None, None, None).await
}

pub(crate) async fn save_audit_settings(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let Ok(days) = form.get("retention_days").parse::<i64>() else {
        let form = form.with_message(Some("retention_days"), "Choose a window from the list.");
        return settings_page(&d, &ctx, &me, Some(form), None, None).await;
    };
    let patch = SettingsPatch {
        retention_days: Some(days),
        webhook_url: Some(Some(form.get("webhook_url").to_owned())),
        chat_webhook_url: Some(Some(form.get("chat_webhook_url").to_owned())),
    };
    match d.hub.update_audit_settings(&me.principal, patch, Source::Dashboard).await {
        // A new secret is shown on this response only.
        Ok((_, Some(secret))) => settings_page(&d, &ctx, &me, None, Some(secret.expose().to_owned()), None).await,
        Ok((_, None)) => d.redirect_with("/app/audit/settings", "success", "Settings saved."),
        Err(e @ (HubError::Validation { .. } | HubError::PlanRequired { .. })) => {
            settings_page(&d, &ctx, &me, Some(form.with_error(&e)), None, None).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn test_audit_webhook(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.send_test_event(&me.principal).await {
        Ok(delivery) => {
            let test = json!({ "status": delivery.status, "latency": delivery.latency_ms, "error": delivery.error });
            settings_page(&d, &ctx, &me, None, None, Some(test)).await
        }
        Err(e @ HubError::Validation { .. }) => {
            settings_page(&d, &ctx, &me, None, None, Some(json!({ "error": e.to_string() }))).await
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}
