//! Personal access tokens and the account: profile, password, plan and
//! usage, sessions.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use hub_core::{HubError, Plan, Source};
use kernel::Secret;
use serde_json::{Value, json};

use super::{Ctx, Dash, Dashboard, Form, FormErrors, Me, Posted, SESSION_COOKIE, when};

/// The expiry choices of a new token, in days (0: never).
const EXPIRY_OPTIONS: [(u32, &str); 5] =
    [(30, "In 30 days"), (90, "In 90 days"), (7, "In 7 days"), (365, "In a year"), (0, "Never")];

async fn tokens_page(d: &Dashboard, ctx: &Ctx, me: &Me, form: Form, created: Option<Value>) -> Response {
    let tokens = match d.hub.list_tokens(&me.principal.email).await {
        Ok(tokens) => tokens,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let now = d.hub.now();
    let rows: Vec<Value> = tokens
        .iter()
        .map(|t| {
            json!({
                "id": t.id,
                "name": t.name,
                "display": t.display,
                "last_used": t.last_used_at.map(when),
                "expires": t.expires_at.map(when),
                "expired": t.expires_at.is_some_and(|at| at <= now),
            })
        })
        .collect();
    let options: Vec<Value> =
        EXPIRY_OPTIONS.iter().map(|(days, label)| json!({ "value": days.to_string(), "label": label })).collect();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "tokens.html",
        "tokens",
        json!({ "tokens": rows, "form": form.view(), "created": created, "expiry_options": options }),
    )
}

pub(crate) async fn tokens(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/tokens").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut form = Form::default();
    form.values.insert("expires_in".into(), "30".into());
    tokens_page(&d, &ctx, &me, form, None).await
}

pub(crate) async fn create_token(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let expires = match form.get("expires_in").parse::<u32>() {
        Ok(0) => None,
        Ok(days) if days <= 3650 => Some(days),
        _ => {
            let form = form.with_message(Some("expires_in"), "Choose an expiry from the list.");
            return tokens_page(&d, &ctx, &me, form, None).await;
        }
    };
    match d.hub.create_token(&me.principal.email, form.get("name"), expires, Source::Dashboard).await {
        // The plaintext is on this response only: never in a redirect, a
        // cookie or a log.
        Ok((info, plaintext)) => {
            let created = json!({ "name": info.name, "plaintext": plaintext.expose() });
            tokens_page(&d, &ctx, &me, Form::default(), Some(created)).await
        }
        Err(e @ HubError::Validation { .. }) => tokens_page(&d, &ctx, &me, form.with_error(&e), None).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn revoke_token(State(d): Dash, Path(id): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    // By id only: a name could match a token created after the page was drawn.
    let owned = match d.hub.list_tokens(&me.principal.email).await {
        Ok(tokens) => tokens.into_iter().any(|t| t.id == id),
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    if !owned {
        return d.error_page(Some(&ctx), &HubError::not_found("token"));
    }
    match d.hub.revoke_token(&me.principal.email, &id, Source::Dashboard).await {
        Ok(token) => {
            d.redirect_with("/app/tokens", "success", &format!("Token {} revoked: it no longer works.", token.name))
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

async fn account_page(d: &Dashboard, ctx: &Ctx, me: &Me, form: Form) -> Response {
    let (account, usage, sessions) = match (
        d.hub.account(&me.principal).await,
        d.hub.usage(&me.principal).await,
        d.hub.list_sessions(&me.principal).await,
    ) {
        (Ok(a), Ok(u), Ok(s)) => (a, u, s),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return d.error_page(Some(ctx), &e),
    };
    let limits = usage.plan.limits();
    let percent = |used: u64, allowed: Option<u32>| {
        allowed.filter(|a| *a > 0).map(|a| ((used.saturating_mul(100)) / u64::from(a)).min(100))
    };
    let allowed = |n: Option<u32>| n.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
    let rows = vec![
        json!({ "label": "Projects", "used": usage.projects, "allowed": allowed(limits.max_projects), "percent": percent(usage.projects, limits.max_projects) }),
        json!({ "label": "Collaborator seats", "used": usage.collaborators, "allowed": limits.collaborator_seats, "percent": percent(usage.collaborators, Some(limits.collaborator_seats)) }),
        json!({ "label": "AI searches this month", "used": usage.ai.ai_searches_this_month, "allowed": allowed(usage.ai.ai_searches_per_month), "percent": percent(usage.ai.ai_searches_this_month, usage.ai.ai_searches_per_month) }),
        json!({ "label": "Docs chat tokens today", "used": usage.ai.chat_tokens_today, "allowed": usage.ai.chat_tokens_per_day, "percent": percent(usage.ai.chat_tokens_today, Some(usage.ai.chat_tokens_per_day)) }),
        json!({ "label": "Preview versions per project", "used": "per project", "allowed": hub_core::plans::fixed::MAX_PREVIEWS_PER_PROJECT, "percent": null }),
        json!({ "label": "Mock overrides per project", "used": "per project", "allowed": mock::overrides::MAX_OVERRIDES, "percent": null }),
    ];
    let plans: Vec<Value> =
        Plan::ALL.iter().map(|p| json!({ "name": p.as_str(), "price": p.limits().price_per_month })).collect();
    let sessions: Vec<Value> = sessions
        .iter()
        .map(|s| {
            json!({
                "id": s.id,
                "user_agent": s.user_agent,
                "ip": s.ip,
                "created_at": when(s.created_at),
                "last_seen_at": when(s.last_seen_at),
                "current": s.id == me.session.id,
            })
        })
        .collect();
    let status = if form.errors.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    d.render(
        ctx,
        status,
        "account.html",
        "account",
        json!({
            "form": form.view(),
            "account": { "email": account.email, "display_name": account.display_name, "created_at": when(account.created_at) },
            "usage": {
                "plan": usage.plan.as_str(),
                "price": limits.price_per_month,
                "rows": rows,
                "open_request": usage.open_request.map(|r| json!({ "plan": r.plan.as_str(), "created_at": when(r.created_at) })),
            },
            "plans": plans,
            "sessions": sessions,
        }),
    )
}

pub(crate) async fn show(State(d): Dash, headers: HeaderMap) -> Response {
    let (ctx, me) = match d.signed_in(&headers, "/app/account").await {
        Ok(found) => found,
        Err(response) => return response,
    };
    account_page(&d, &ctx, &me, Form::default()).await
}

pub(crate) async fn profile(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.update_profile(&me.principal, form.get("display_name")).await {
        Ok(_) => d.redirect_with("/app/account", "success", "Profile saved."),
        Err(e @ HubError::Validation { .. }) => account_page(&d, &ctx, &me, form.with_error(&e)).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn password(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, ip } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    // The current password is a password check like a sign-in: the same
    // throttle, per address and per account.
    if let Err(wait) = d.signins.check(ip, &me.principal.email).await {
        return super::auth::throttled(&d, wait.secs);
    }
    let current = Secret::new(form.get("current_password").to_owned());
    let new = Secret::new(form.get("new_password").to_owned());
    match d.hub.change_password(&me.principal, &current, &new, Some(&me.session.id), Source::Dashboard).await {
        Ok(renewed) => {
            let mut response =
                d.redirect_with("/app/account", "success", "Password changed. Every other session has ended.");
            // This browser's session continues under a new secret.
            if let Some(secret) = renewed {
                let max_age = (me.session.expires_at.as_millis() - d.hub.now().as_millis()) / 1000;
                if let Ok(value) = HeaderValue::from_str(&d.web.cookies.set(SESSION_COOKIE, secret.expose(), max_age)) {
                    response.headers_mut().append(header::SET_COOKIE, value);
                }
            }
            response
        }
        Err(HubError::Validation { field: Some("password"), message }) => {
            // The policy names the field `password`; on this form it is the new one.
            let form = form.with_message(Some("new_password"), message);
            account_page(&d, &ctx, &me, form).await
        }
        Err(e @ HubError::Validation { .. }) => account_page(&d, &ctx, &me, form.with_error(&e)).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn plan(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let Ok(plan) = form.get("plan").parse::<Plan>() else {
        let form = form.with_message(Some("plan"), "Choose free, pro or business.");
        return account_page(&d, &ctx, &me, form).await;
    };
    match d.hub.request_plan(&me.principal, plan, Source::Dashboard).await {
        Ok(request) => d.redirect_with(
            "/app/account#plan",
            "success",
            &format!("You asked for the {} plan. The hub's operator completes the change.", request.plan.as_str()),
        ),
        Err(e @ HubError::Validation { .. }) => account_page(&d, &ctx, &me, form.with_error(&e)).await,
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn revoke_session(State(d): Dash, Path(id): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.revoke_session(&me.principal, &id).await {
        Ok(()) => d.redirect_with("/app/account#sessions", "success", "That browser is signed out."),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn signout_everywhere(State(d): Dash, request: Request) -> Response {
    let Posted { ctx, me, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    match d.hub.sign_out_everywhere(&me.principal, Source::Dashboard).await {
        Ok(n) => {
            let mut response = d.redirect_with("/app/signin", "info", &format!("Signed out of {n} sessions."));
            if let Ok(value) = HeaderValue::from_str(&d.web.cookies.clear(SESSION_COOKIE)) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}
