//! The workspace's settings: its id and plan, usage against the plan's
//! allowances, members and invitations.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use courses_core::members::{Role, SignedIn};
use page_kit::Form;
use serde_json::{Value, json};

use super::{Ctx, St, form_status, form_with_error};
use crate::AppState;

async fn settings_page(s: &AppState, ctx: &Ctx, me: &SignedIn, form: &Form, link: Option<&str>) -> Response {
    let usage = match s.courses.usage(&me.access).await {
        Ok(usage) => usage,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let members = match s.courses.list_members(me).await {
        Ok(members) => members,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let invitations = if me.member.role == Role::Owner {
        match s.courses.pending_invitations(me).await {
            Ok(list) => list,
            Err(e) => return s.error_page(Some(ctx), e),
        }
    } else {
        Vec::new()
    };
    let ws = &me.access.workspace;
    let members: Vec<Value> = members
        .iter()
        .map(|m| json!({ "name": m.display_name, "email": m.email, "role": m.role.as_str(), "since": page_kit::when(m.created_at) }))
        .collect();
    let invitations: Vec<Value> = invitations
        .iter()
        .map(|i| json!({ "email": i.email, "role": i.role.as_str(), "expires": page_kit::when(i.expires_at) }))
        .collect();
    let mut response = s.render(
        ctx,
        if link.is_some() { StatusCode::OK } else { form_status(form) },
        "settings.html",
        "settings",
        json!({
            "workspace": { "id": ws.id, "name": ws.name, "plan": ws.plan.as_str() },
            "usage": {
                "month": usage.month,
                "views": usage.course_views,
                "views_allowance": usage.course_views_allowance,
                "views_overage": usage.course_views_overage,
                "generations": usage.generations,
                "generations_allowance": usage.generations_allowance.map_or_else(|| "unlimited".to_owned(), |n| n.to_string()),
                "hard_capped": ws.plan.hard_capped(),
            },
            "members": members,
            "invitations": invitations,
            "is_owner": me.member.role == Role::Owner,
            "form": form.view(),
            "invitation_link": link,
        }),
    );
    if link.is_some() {
        // The link is a secret: shown once, on the answer to the POST.
        response
            .headers_mut()
            .insert(axum::http::header::CACHE_CONTROL, axum::http::HeaderValue::from_static("no-store"));
    }
    response
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => settings_page(&s, &ctx, &me, &Form::default(), None).await,
        Err(response) => response,
    }
}

/// Invites a person (owners only): the link is mailed, and shown once here.
pub(super) async fn invite(State(s): St, request: Request) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let Some(role) = Role::parse(p.form.get("role")) else {
        let form = p.form.with_message(Some("role"), "Choose owner, author or viewer.");
        return settings_page(&s, &p.ctx, &p.me, &form, None).await;
    };
    match s.courses.invite(&p.me, p.form.get("email"), role).await {
        Ok((_, link)) => settings_page(&s, &p.ctx, &p.me, &Form::default(), Some(&link)).await,
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            settings_page(&s, &p.ctx, &p.me, &form_with_error(p.form, &e), None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// A new workspace for the signed-in person, who owns it and moves to it.
pub(super) async fn new_workspace(State(s): St, request: Request) -> Response {
    let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().cloned();
    let headers = request.headers().clone();
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    // As sign-ups: at most 10 a minute from one client address.
    if let Some(ip) = s.studio_client(&headers, peer.as_ref())
        && let Err(wait) = s.studio.mails.check(&ip).await
    {
        return super::auth::throttled(&s, wait.secs);
    }
    match s.courses.create_own_workspace(&p.me, p.form.get("workspace_name")).await {
        Ok(ws) => s.redirect_with(
            "/",
            "success",
            &format!("{} is ready: you own it. The header switches workspaces.", ws.name),
        ),
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            settings_page(&s, &p.ctx, &p.me, &form_with_error(p.form, &e), None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
