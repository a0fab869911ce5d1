//! Sign-up, address verification, sign-in, sign-out and password reset.

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use hub_core::HubError;
use hub_core::sessions::{ClientInfo, SignInRefusal, SignupMode};
use kernel::Secret;
use serde::Deserialize;
use serde_json::json;

use super::{Ctx, Dash, Form, FormErrors, SESSION_COOKIE, client_ip, read_form, safe_next};

#[derive(Deserialize, Default)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

/// Signed-in browsers skip the sign-in and sign-up pages.
fn already_signed_in(ctx: &Ctx) -> Option<Response> {
    ctx.me.as_ref().map(|_| Redirect::to("/app").into_response())
}

pub(super) fn throttled(d: &super::Dashboard, secs: u64) -> Response {
    let mut response =
        d.message(StatusCode::TOO_MANY_REQUESTS, "Too many attempts", &format!("Wait {secs} seconds and try again."));
    if let Ok(value) = HeaderValue::from_str(&secs.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

pub(crate) async fn signup_form(State(d): Dash, headers: HeaderMap) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    if let Some(redirect) = already_signed_in(&ctx) {
        return redirect;
    }
    d.render(&ctx, StatusCode::OK, "signup.html", "", json!({ "form": Form::default().view() }))
}

pub(crate) async fn signup(State(d): Dash, request: Request) -> Response {
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
    if d.hub.accounts_config().signup == SignupMode::Closed {
        return d.error_page(Some(&ctx), &HubError::SignupClosed);
    }
    if let Some(ip) = client_ip(&d.web, &headers, peer.as_ref())
        && let Err(wait) = d.mails.check(&ip).await
    {
        return throttled(&d, wait.secs);
    }
    let password = Secret::new(form.get("password").to_owned());
    match d.hub.sign_up(form.get("email"), &password).await {
        Ok(()) => check_mail(&d, &ctx, form.get("email")),
        Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. })) => d.render(
            &ctx,
            StatusCode::UNPROCESSABLE_ENTITY,
            "signup.html",
            "",
            json!({ "form": form.with_error(&e).view() }),
        ),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// "Check your mail": the same page whether or not the address had an
/// account (the mail itself is sent off the request path).
fn check_mail(d: &super::Dashboard, ctx: &Ctx, email: &str) -> Response {
    let lines = [
        format!("If {email} can receive a link from us, it is on its way. Open it to continue; it works once."),
        "No mail after a few minutes? Look in the spam folder, or ask for a new link.".to_owned(),
    ];
    d.render(
        ctx,
        StatusCode::OK,
        "message.html",
        "",
        json!({ "heading": "Check your mail", "lines": lines, "link": "/app/signin", "link_label": "Go to sign in" }),
    )
}

pub(crate) async fn verify_form(State(d): Dash, headers: HeaderMap, Query(query): Query<TokenQuery>) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    // Using the link takes a click: mail scanners that fetch links must
    // not use it up.
    d.render(
        &ctx,
        StatusCode::OK,
        "message.html",
        "",
        json!({
            "heading": "Verify your address",
            "lines": ["One click finishes creating your account."],
            "confirm_action": "/app/verify",
            "confirm_label": "Verify my address",
            "token": query.token,
        }),
    )
}

pub(crate) async fn verify(State(d): Dash, request: Request) -> Response {
    let (headers, _, form) = match read_form(request).await {
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
    match d.hub.verify_email(form.get("token")).await {
        Ok(user) => d.redirect_with(
            &format!("/app/signin?email={}", super::encode(&user.email)),
            "success",
            "Your address is verified. Sign in to continue.",
        ),
        Err(e @ HubError::Validation { .. }) => d.render(
            &ctx,
            StatusCode::BAD_REQUEST,
            "message.html",
            "",
            json!({ "heading": "This link does not work", "lines": [e.to_string()], "link": "/app/signin", "link_label": "Go to sign in" }),
        ),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn resend(State(d): Dash, request: Request) -> Response {
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
    if let Some(ip) = client_ip(&d.web, &headers, peer.as_ref())
        && let Err(wait) = d.mails.check(&ip).await
    {
        return throttled(&d, wait.secs);
    }
    match d.hub.resend_verification(form.get("email")).await {
        Ok(()) => check_mail(&d, &ctx, form.get("email")),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct SigninQuery {
    #[serde(default)]
    next: String,
    #[serde(default)]
    email: String,
}

pub(crate) async fn signin_form(State(d): Dash, headers: HeaderMap, Query(query): Query<SigninQuery>) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    if let Some(redirect) = already_signed_in(&ctx) {
        return redirect;
    }
    let mut form = Form::default();
    form.values.insert("email".into(), query.email);
    d.render(&ctx, StatusCode::OK, "signin.html", "", json!({ "form": form.view(), "next": safe_next(&query.next) }))
}

pub(crate) async fn signin(State(d): Dash, request: Request) -> Response {
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
    let email = form.get("email").trim().to_owned();
    let ip = client_ip(&d.web, &headers, peer.as_ref());
    if let Err(wait) = d.signins.check(ip, &email).await {
        return throttled(&d, wait.secs);
    }
    let client = ClientInfo {
        user_agent: headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned(),
        ip: ip.map(|ip| ip.to_string()).unwrap_or_default(),
    };
    let password = Secret::new(form.get("password").to_owned());
    let next = safe_next(form.get("next")).to_owned();
    match d.hub.sign_in(&email, &password, client).await {
        Ok(Ok(session)) => {
            let max_age = (session.info.expires_at.as_millis() - session.info.created_at.as_millis()) / 1000;
            let mut response = Redirect::to(&next).into_response();
            let cookie = d.web.cookies.set(SESSION_COOKIE, session.secret.expose(), max_age);
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Ok(Err(refusal)) => {
            let unverified = refusal == SignInRefusal::Unverified;
            let message = if unverified {
                "Verify your address first: open the link we mailed you."
            } else {
                "The address or the password is not right."
            };
            let form = form.with_message(None, message);
            d.render(
                &ctx,
                StatusCode::UNPROCESSABLE_ENTITY,
                "signin.html",
                "",
                json!({ "form": form.view(), "next": next, "unverified": unverified }),
            )
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn signout(State(d): Dash, request: Request) -> Response {
    let (headers, _, form) = match read_form(request).await {
        Ok(parts) => parts,
        Err(response) => return response,
    };
    if let Err(response) = d.check_csrf(&headers, Some(form.get(platform::web::CSRF_FIELD))) {
        return response;
    }
    if let Some(secret) = d.web.cookies.get(&headers, SESSION_COOKIE)
        && let Err(e) = d.hub.sign_out(secret).await
    {
        return d.error_page(None, &e);
    }
    let mut response = d.redirect_with("/app/signin", "info", "You are signed out.");
    if let Ok(value) = HeaderValue::from_str(&d.web.cookies.clear(SESSION_COOKIE)) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

pub(crate) async fn reset_form(State(d): Dash, headers: HeaderMap) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    d.render(&ctx, StatusCode::OK, "reset.html", "", json!({ "form": Form::default().view() }))
}

pub(crate) async fn reset_request(State(d): Dash, request: Request) -> Response {
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
    if let Some(ip) = client_ip(&d.web, &headers, peer.as_ref())
        && let Err(wait) = d.mails.check(&ip).await
    {
        return throttled(&d, wait.secs);
    }
    if form.get("email").trim().is_empty() {
        let form = form.with_message(Some("email"), "Enter the address of your account");
        return d.render(&ctx, StatusCode::UNPROCESSABLE_ENTITY, "reset.html", "", json!({ "form": form.view() }));
    }
    match d.hub.request_password_reset(form.get("email")).await {
        Ok(()) => check_mail(&d, &ctx, form.get("email")),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn reset_new_form(State(d): Dash, headers: HeaderMap, Query(query): Query<TokenQuery>) -> Response {
    let ctx = match d.ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return d.error_page(None, &e),
    };
    match d.hub.reset_link_tokens(&query.token).await {
        Ok(Some(tokens)) => d.render(
            &ctx,
            StatusCode::OK,
            "reset_new.html",
            "",
            json!({ "form": Form::default().view(), "token": query.token, "tokens": token_rows(&tokens), "revoke": true }),
        ),
        Ok(None) => d.render(
            &ctx,
            StatusCode::BAD_REQUEST,
            "message.html",
            "",
            json!({
                "heading": "This link does not work",
                "lines": ["It was used already or has expired."],
                "link": "/app/reset",
                "link_label": "Ask for a new link",
            }),
        ),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

pub(crate) async fn reset_new(State(d): Dash, request: Request) -> Response {
    let (headers, _, form) = match read_form(request).await {
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
    let token = form.get("token").to_owned();
    let password = Secret::new(form.get("password").to_owned());
    let revoke = form.checked("revoke_tokens");
    match d.hub.reset_password(&token, &password, revoke).await {
        Ok(user) => d.redirect_with(
            &format!("/app/signin?email={}", super::encode(&user.email)),
            "success",
            "Your password is saved. Sign in with it.",
        ),
        Err(e @ HubError::Validation { field: Some("password"), .. }) => {
            let tokens = d.hub.reset_link_tokens(&token).await.ok().flatten().unwrap_or_default();
            d.render(
                &ctx,
                StatusCode::UNPROCESSABLE_ENTITY,
                "reset_new.html",
                "",
                json!({ "form": form.with_error(&e).view(), "token": token, "tokens": token_rows(&tokens), "revoke": revoke }),
            )
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The tokens a reset page lists: names and prefixes, never a secret.
fn token_rows(tokens: &[hub_core::TokenInfo]) -> Vec<serde_json::Value> {
    tokens
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "display": t.display,
                "created": super::when(t.created_at),
                "last_used": t.last_used_at.map(super::when),
            })
        })
        .collect()
}
