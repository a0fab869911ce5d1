//! `/authorize` (a login and consent page) and `/api/token`.
//!
//! The page is a credential form, so it carries a CSRF token (the signed
//! double-submit token of `platform::web::Csrf`, whose cookie follows the
//! public URL), may not be framed (`frame-ancestors 'none'`), and is never
//! cached. Every password check passes the catalog's sign-in throttle, keyed
//! by the client address the trusted proxies let be known.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use catalog_core::oauth::{AuthorizeRequest, TokenRequest};
use serde_json::json;

use crate::AppState;
use crate::error::OAuthError;
use crate::extract::{FORM_BODY_LIMIT, LimitedBody, Query};

/// The login page's policy: its own inline styles, nothing else, no framing
/// (clickjacking of the consent), no `<base>`. No `form-action`: browsers
/// apply it to the redirect that follows the form, which goes to the app.
const PAGE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

const PARAMS: &[&str] =
    &["client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method"];

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}}\
         label{{display:block;margin:.8rem 0 .2rem}}input{{width:100%;padding:.4rem}}button{{margin-top:1rem;padding:.5rem 1rem}}\
         .err{{color:#b00}}li{{font-family:monospace}}</style></head><body>{body}</body></html>"
    )
}

/// An HTML answer of the login flow with the page's security headers.
fn html(status: StatusCode, body: String, set_cookie: Option<String>) -> Response {
    let mut response = (status, Html(body)).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Some(cookie) = set_cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        h.append(header::SET_COOKIE, cookie);
    }
    response
}

fn error_page(status: StatusCode, message: &str) -> Response {
    html(
        status,
        page("Authorization failed", &format!("<h1>Authorization failed</h1><p class=\"err\">{}</p>", escape(message))),
        None,
    )
}

fn login_form(pairs: &[(String, String)], request: &AuthorizeRequest, csrf: &str, error: Option<&str>) -> String {
    let csrf = format!("<input type=\"hidden\" name=\"{}\" value=\"{}\">", platform::web::CSRF_FIELD, escape(csrf));
    let hidden: String = pairs
        .iter()
        .filter(|(k, _)| PARAMS.contains(&k.as_str()))
        .map(|(k, v)| format!("<input type=\"hidden\" name=\"{}\" value=\"{}\">", escape(k), escape(v)))
        .collect();
    let scopes = request.scopes.to_header();
    let scope_list: String = if scopes.is_empty() {
        "<li>your public profile</li>".to_owned()
    } else {
        scopes.split(' ').map(|s| format!("<li>{}</li>", escape(s))).collect()
    };
    let error = error.map(|e| format!("<p class=\"err\">{}</p>", escape(e))).unwrap_or_default();
    page(
        "Log in to the catalog",
        &format!(
            "<h1>Log in</h1><p><strong>{}</strong> asks to access your catalog account:</p><ul>{scope_list}</ul>{error}\
             <form method=\"post\" action=\"/authorize\">{csrf}{hidden}\
             <label for=\"username\">User name</label><input id=\"username\" name=\"username\" autocomplete=\"username\" required>\
             <label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
             <button name=\"decision\" value=\"allow\" type=\"submit\">Agree</button> \
             <button name=\"decision\" value=\"deny\" type=\"submit\" formnovalidate>Cancel</button></form>",
            escape(&request.app.name)
        ),
    )
}

fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

async fn check(state: &AppState, pairs: &[(String, String)]) -> Result<AuthorizeRequest, Response> {
    let p = |n| get(pairs, n).unwrap_or("");
    state
        .catalog
        .check_authorize(
            p("client_id"),
            p("redirect_uri"),
            p("response_type"),
            p("scope"),
            get(pairs, "code_challenge"),
            get(pairs, "code_challenge_method"),
        )
        .await
        .map_err(|e| error_page(StatusCode::BAD_REQUEST, &e.to_string()))
}

fn redirect_with(uri: &str, params: &[(&str, &str)]) -> Response {
    let qs = serde_urlencoded::to_string(params).unwrap_or_default();
    let sep = if uri.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{uri}{sep}{qs}")).into_response()
}

/// The login form with a CSRF token for this browser (and the cookie it
/// is bound to, when the browser had none).
fn form_response(
    state: &AppState,
    headers: &HeaderMap,
    status: StatusCode,
    pairs: &[(String, String)],
    request: &AuthorizeRequest,
    error: Option<&str>,
) -> Response {
    let csrf = state.csrf.issue(headers);
    html(status, login_form(pairs, request, &csrf.token, error), csrf.set_cookie)
}

/// `GET /authorize`: the login and consent page.
pub async fn authorize_page(State(state): State<AppState>, headers: HeaderMap, query: Query) -> Response {
    match check(&state, &query.pairs).await {
        Ok(request) => form_response(&state, &headers, StatusCode::OK, &query.pairs, &request, None),
        Err(page) => page,
    }
}

/// `POST /authorize`: checks the CSRF token, then the login (throttled per
/// client address and per account), and redirects with a code.
pub async fn authorize_submit(
    State(state): State<AppState>,
    extensions: Extensions,
    headers: HeaderMap,
    LimitedBody(body): LimitedBody<FORM_BODY_LIMIT>,
) -> Response {
    let Ok(pairs) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body) else {
        return error_page(StatusCode::BAD_REQUEST, "the form is not valid");
    };
    if !state.csrf.verify(&headers, get(&pairs, platform::web::CSRF_FIELD)) {
        return error_page(
            StatusCode::FORBIDDEN,
            "This form was not sent from the catalog's own login page, or it expired. Go back to the app and start the login again.",
        );
    }
    let request = match check(&state, &pairs).await {
        Ok(r) => r,
        Err(page) => return page,
    };
    let state_param = get(&pairs, "state");
    let with_state = |mut params: Vec<(&'static str, String)>| {
        if let Some(s) = state_param {
            params.push(("state", s.to_owned()));
        }
        params
    };
    if get(&pairs, "decision") == Some("deny") {
        let params = with_state(vec![("error", "access_denied".to_owned())]);
        let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        return redirect_with(&request.redirect_uri, &refs);
    }
    let peer = extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let ip = platform::net::client_ip(&state.proxies, peer, &headers);
    let username = get(&pairs, "username").unwrap_or("");
    let user = match state.catalog.login(username, get(&pairs, "password").unwrap_or(""), ip).await {
        Ok(user) => user,
        Err(catalog_core::CatalogError::RateLimited { retry_after_secs }) => {
            let message = format!("Too many login attempts. Try again in {retry_after_secs} seconds.");
            let mut response =
                form_response(&state, &headers, StatusCode::TOO_MANY_REQUESTS, &pairs, &request, Some(&message));
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs.max(1)));
            return response;
        }
        Err(catalog_core::CatalogError::Forbidden(_)) => {
            return form_response(
                &state,
                &headers,
                StatusCode::UNAUTHORIZED,
                &pairs,
                &request,
                Some("Wrong user name or password."),
            );
        }
        Err(e) => {
            tracing::error!(error = %e, "login failed");
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, "The login could not be checked; try again.");
        }
    };
    match state.catalog.issue_code(&request, &user).await {
        Ok(code) => {
            let params = with_state(vec![("code", code.into_inner())]);
            let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            redirect_with(&request.redirect_uri, &refs)
        }
        Err(e) => {
            tracing::error!(error = %e, "issuing a code failed");
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "The login could not be completed; try again.")
        }
    }
}

/// Client credentials from an `Authorization: Basic base64(id:secret)`
/// header value (RFC 6749 2.3.1: each part form-urlencoded before base64).
pub fn basic_credentials(value: &str) -> Option<(String, String)> {
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let unescape = |s: &str| -> String {
        serde_urlencoded::from_str::<Vec<(String, String)>>(&format!("v={s}"))
            .ok()
            .and_then(|mut v| v.pop())
            .map_or_else(|| s.to_owned(), |(_, v)| v)
    };
    Some((unescape(id), unescape(secret)))
}

/// The token request of a form body and an optional `Authorization`
/// header (Basic credentials win over body fields).
pub fn token_request(authorization: Option<&str>, body: &[u8]) -> Result<TokenRequest, catalog_core::CatalogError> {
    let pairs = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body)
        .map_err(|_| catalog_core::CatalogError::invalid("the body must be application/x-www-form-urlencoded"))?;
    let field = |n: &str| get(&pairs, n).map(str::to_owned);
    let (basic_id, basic_secret) =
        authorization.and_then(basic_credentials).map_or((None, None), |(i, s)| (Some(i), Some(s)));
    Ok(TokenRequest {
        grant_type: field("grant_type").unwrap_or_default(),
        code: field("code"),
        redirect_uri: field("redirect_uri"),
        code_verifier: field("code_verifier"),
        refresh_token: field("refresh_token"),
        client_id: basic_id.or_else(|| field("client_id")),
        client_secret: basic_secret.or_else(|| field("client_secret")),
        scope: field("scope"),
    })
}

/// `POST /api/token`.
pub async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    LimitedBody(body): LimitedBody<FORM_BODY_LIMIT>,
) -> Result<Response, OAuthError> {
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let request = token_request(authorization, &body)?;
    let issued = state.catalog.token(&request).await?;
    let mut body = json!({
        "access_token": issued.access_token,
        "token_type": "Bearer",
        "scope": issued.scope.to_header(),
        "expires_in": issued.expires_in,
    });
    if let (Some(refresh), Some(map)) = (issued.refresh_token, body.as_object_mut()) {
        map.insert("refresh_token".to_owned(), json!(refresh));
    }
    Ok(([(header::CACHE_CONTROL, "no-store")], axum::Json(body)).into_response())
}
