//! Sign-up, sign-in, sign-out, accepting an invitation and resetting a
//! forgotten password by a mailed link.

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use courses_core::members::{NewSession, SignInOutcome, SignUp, SignupMode};
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

pub(super) fn throttled(s: &AppState, secs: u64) -> Response {
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
        Ok(ctx) if s.courses.members_config().signup != SignupMode::Open => {
            s.error_page(Some(&ctx), courses_core::CoursesError::SignupClosed)
        }
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
        && let Err(wait) = s.studio.mails.check(&ip).await
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
        // The same page whether or not the address had an account.
        Ok(()) => s.render(
            &ctx,
            StatusCode::OK,
            "check_mail.html",
            "",
            json!({ "email": form.get("email").trim(), "purpose": "verify" }),
        ),
        Err(e @ courses_core::CoursesError::SignupClosed) => s.error_page(Some(&ctx), e),
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
    if let Err(wait) = s.studio.signins.check(s.studio_client(&headers, peer.as_ref()), &email).await {
        return throttled(&s, wait.secs);
    }
    let password = Secret::new(form.get("password").to_owned());
    match s.courses.sign_in(&email, &password).await {
        Ok(SignInOutcome::SignedIn(session)) => signed_in_redirect(&s, &session, "Signed in."),
        Ok(SignInOutcome::Unverified) => s.render(
            &ctx,
            StatusCode::OK,
            "check_mail.html",
            "",
            json!({ "email": email, "purpose": "verify", "unverified": true }),
        ),
        Ok(SignInOutcome::Refused) => {
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
    if let Err(wait) = s.studio.signins.check(s.studio_client(&headers, peer.as_ref()), &secret).await {
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

/// The `?token=` of a mailed link.
#[derive(serde::Deserialize)]
pub(super) struct TokenQuery {
    #[serde(default)]
    token: String,
}

fn reset_page(s: &AppState, ctx: &Ctx, form: &Form) -> Response {
    s.render(ctx, form_status(form), "reset.html", "", json!({ "form": form.view() }))
}

pub(super) async fn reset_form(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_ctx(&headers).await {
        Ok(ctx) => reset_page(&s, &ctx, &Form::default()),
        Err(e) => s.error_page(None, e),
    }
}

/// Mails a reset link when the address has an account; the page that
/// follows is the same for every address.
pub(super) async fn reset_request(State(s): St, request: Request) -> Response {
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
        && let Err(wait) = s.studio.mails.check(&ip).await
    {
        return throttled(&s, wait.secs);
    }
    let email = form.get("email").trim().to_owned();
    if email.is_empty() {
        return reset_page(&s, &ctx, &form.with_message(Some("email"), "Enter the address of your account."));
    }
    match s.courses.request_password_reset(&email).await {
        Ok(()) => s.render(&ctx, StatusCode::OK, "check_mail.html", "", json!({ "email": email })),
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

fn spent_link(s: &AppState) -> Response {
    s.message(
        StatusCode::BAD_REQUEST,
        "This link does not work",
        "It was used already or has expired. Ask for a new one on the sign-in page.",
    )
}

pub(super) async fn reset_new_form(State(s): St, headers: HeaderMap, Query(query): Query<TokenQuery>) -> Response {
    let ctx = match s.studio_ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return s.error_page(None, e),
    };
    match s.courses.reset_link_email(&query.token).await {
        Ok(Some(email)) => s.render(
            &ctx,
            StatusCode::OK,
            "reset_new.html",
            "",
            json!({ "form": Form::default().view(), "token": query.token, "email": email }),
        ),
        Ok(None) => spent_link(&s),
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

/// Sets the new password, ends every session of the person and sends them
/// to sign in with it.
pub(super) async fn reset_new(State(s): St, request: Request) -> Response {
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
    let token = form.get("token").to_owned();
    let password = Secret::new(form.get("password").to_owned());
    match s.courses.reset_password(&token, &password).await {
        Ok(_) => {
            let mut response = s.redirect_with("/signin", "success", "Your password is saved. Sign in with it.");
            if let Ok(value) = HeaderValue::from_str(&s.studio.cookies.clear(SESSION_COOKIE)) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Err(courses_core::CoursesError::Invalid { ref issues, .. })
            if issues.iter().any(|i| i.path.first().is_some_and(|f| f == "token")) =>
        {
            spent_link(&s)
        }
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            let email = s.courses.reset_link_email(&token).await.ok().flatten().unwrap_or_default();
            s.render(
                &ctx,
                StatusCode::UNPROCESSABLE_ENTITY,
                "reset_new.html",
                "",
                json!({ "form": form_with_error(form, &e).view(), "token": token, "email": email }),
            )
        }
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

/// A confirmation link opens a page with a button: the POST uses the link,
/// so mail scanners that fetch links do not spend it.
pub(super) async fn verify_form(State(s): St, headers: HeaderMap, Query(query): Query<TokenQuery>) -> Response {
    match s.studio_ctx(&headers).await {
        Ok(ctx) => s.render(&ctx, StatusCode::OK, "verify.html", "", json!({ "token": query.token })),
        Err(e) => s.error_page(None, e),
    }
}

/// Confirms the address and signs the person in.
pub(super) async fn verify(State(s): St, request: Request) -> Response {
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
    match s.courses.verify_address(form.get("token")).await {
        Ok(session) => signed_in_redirect(
            &s,
            &session,
            "Your address is confirmed and your workspace is ready. Create your first course.",
        ),
        Err(courses_core::CoursesError::Invalid { .. }) => s.message(
            StatusCode::BAD_REQUEST,
            "This link does not work",
            "It was used already or has expired. Sign in with your address and password to get a new one.",
        ),
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

/// Moves the session to another workspace of the person.
pub(super) async fn switch_workspace(State(s): St, request: Request) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    match s.courses.switch_workspace(&p.me, p.form.get("workspace").trim()).await {
        Ok(()) => s.redirect_with("/", "success", "Workspace switched."),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
