//! Sign-up, sign-in, sign-out and accepting an invitation.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use courses_core::members::{NewSession, SignUp};
use kernel::Secret;
use page_kit::Form;
use serde_json::json;

use super::{Ctx, SESSION_COOKIE, SESSION_COOKIE_SECS, St, form_status, form_with_error};
use crate::AppState;

/// A redirect home that sets the new session's cookie.
fn signed_in_redirect(s: &AppState, session: &NewSession, flash: &str) -> Response {
    let mut response = s.redirect_with("/", "success", flash);
    let cookie = s.studio.cookies.set(SESSION_COOKIE, session.secret.expose(), SESSION_COOKIE_SECS);
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

fn throttled(s: &AppState, secs: u64) -> Response {
    let mut response = s.message(
        StatusCode::TOO_MANY_REQUESTS,
        "Slow down",
        "Too many attempts from here in a short time. Wait a minute and try again.",
    );
    if let Ok(value) = HeaderValue::from_str(&secs.max(1).to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

fn signup_page(s: &AppState, ctx: &Ctx, form: &Form) -> Response {
    s.render(ctx, form_status(form), "signup.html", "signup", json!({ "form": form.view() }))
}

pub(super) async fn signup_form(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_ctx(&headers).await {
        Ok(ctx) if ctx.me.is_some() => Redirect::to("/").into_response(),
        Ok(ctx) => signup_page(&s, &ctx, &Form::default()),
        Err(e) => s.error_page(None, e),
    }
}

pub(super) async fn signup(State(s): St, request: Request) -> Response {
    let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().cloned();
    let (headers, _, form) = match page_kit::read_form(request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let ctx = match s.studio_ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return s.error_page(None, e),
    };
    if let Err(response) = s.check_csrf(&headers, &form) {
        return response;
    }
    if let Some(ip) = s.studio_client(&headers, peer.as_ref())
        && let Err(wait) = s.studio.mails.check(&ip)
    {
        return throttled(&s, wait.secs);
    }
    let password = Secret::new(form.get("password").to_owned());
    let result = s
        .courses
        .sign_up(SignUp {
            workspace_name: form.get("workspace_name"),
            display_name: form.get("display_name"),
            email: form.get("email"),
            password: &password,
        })
        .await;
    match result {
        Ok(session) => signed_in_redirect(&s, &session, "Welcome: your workspace is ready. Create your first course."),
        Err(e) => signup_page(&s, &ctx, &form_with_error(form, &e)),
    }
}

fn signin_page(s: &AppState, ctx: &Ctx, form: &Form) -> Response {
    s.render(ctx, form_status(form), "signin.html", "signin", json!({ "form": form.view() }))
}

pub(super) async fn signin_form(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_ctx(&headers).await {
        Ok(ctx) if ctx.me.is_some() => Redirect::to("/").into_response(),
        Ok(ctx) => signin_page(&s, &ctx, &Form::default()),
        Err(e) => s.error_page(None, e),
    }
}

pub(super) async fn signin(State(s): St, request: Request) -> Response {
    let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().cloned();
    let (headers, _, form) = match page_kit::read_form(request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let ctx = match s.studio_ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return s.error_page(None, e),
    };
    if let Err(response) = s.check_csrf(&headers, &form) {
        return response;
    }
    let email = form.get("email").trim().to_lowercase();
    if let Err(wait) = s.studio.signins.check(s.studio_client(&headers, peer.as_ref()), &email) {
        return throttled(&s, wait.secs);
    }
    let password = Secret::new(form.get("password").to_owned());
    match s.courses.sign_in(&email, &password).await {
        Ok(Some(session)) => signed_in_redirect(&s, &session, "Signed in."),
        Ok(None) => {
            signin_page(&s, &ctx, &form.with_message(Some("password"), "The address or the password is not right."))
        }
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

pub(super) async fn signout(State(s): St, request: Request) -> Response {
    let (headers, _, form) = match page_kit::read_form(request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    if let Err(response) = s.check_csrf(&headers, &form) {
        return response;
    }
    if let Some(secret) = s.studio.cookies.get(&headers, SESSION_COOKIE)
        && let Err(e) = s.courses.sign_out(secret).await
    {
        return s.error_page(None, e);
    }
    let mut response = s.redirect_with("/", "info", "Signed out.");
    if let Ok(value) = HeaderValue::from_str(&s.studio.cookies.clear(SESSION_COOKIE)) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

async fn invitation_page(s: &AppState, ctx: &Ctx, secret: &str, form: &Form) -> Response {
    match s.courses.invitation(secret).await {
        Ok(view) => s.render(
            ctx,
            form_status(form),
            "invitation.html",
            "",
            json!({
                "form": form.view(),
                "workspace": view.workspace_name,
                "email": view.invitation.email,
                "role": view.invitation.role.as_str(),
                "has_account": view.has_account,
                "action": format!("/invitations/{secret}"),
            }),
        ),
        Err(e) => s.error_page(Some(ctx), e),
    }
}

pub(super) async fn invitation_form(State(s): St, Path(secret): Path<String>, headers: HeaderMap) -> Response {
    match s.studio_ctx(&headers).await {
        Ok(ctx) => invitation_page(&s, &ctx, &secret, &Form::default()).await,
        Err(e) => s.error_page(None, e),
    }
}

pub(super) async fn accept_invitation(State(s): St, Path(secret): Path<String>, request: Request) -> Response {
    let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().cloned();
    let (headers, _, form) = match page_kit::read_form(request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let ctx = match s.studio_ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return s.error_page(None, e),
    };
    if let Err(response) = s.check_csrf(&headers, &form) {
        return response;
    }
    if let Err(wait) = s.studio.signins.check(s.studio_client(&headers, peer.as_ref()), &secret) {
        return throttled(&s, wait.secs);
    }
    let password = Secret::new(form.get("password").to_owned());
    match s.courses.accept_invitation(&secret, form.get("display_name"), &password).await {
        Ok(session) => signed_in_redirect(&s, &session, "Welcome to the workspace."),
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            invitation_page(&s, &ctx, &secret, &form_with_error(form, &e)).await
        }
        Err(e) => s.error_page(Some(&ctx), e),
    }
}
