//! `/authorize` (a login and consent page) and `/api/token`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use catalog_core::oauth::{AuthorizeRequest, TokenRequest};
use serde_json::json;

use crate::AppState;
use crate::error::OAuthError;
use crate::extract::Query;

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

fn error_page(status: StatusCode, message: &str) -> Response {
    (
        status,
        Html(page(
            "Authorization failed",
            &format!("<h1>Authorization failed</h1><p class=\"err\">{}</p>", escape(message)),
        )),
    )
        .into_response()
}

fn login_form(pairs: &[(String, String)], request: &AuthorizeRequest, error: Option<&str>) -> String {
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
             <form method=\"post\" action=\"/authorize\">{hidden}\
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

/// `GET /authorize`: the login and consent page.
pub async fn authorize_page(State(state): State<AppState>, query: Query) -> Response {
    match check(&state, &query.pairs).await {
        Ok(request) => Html(login_form(&query.pairs, &request, None)).into_response(),
        Err(page) => page,
    }
}

/// `POST /authorize`: checks the login and redirects with a code.
pub async fn authorize_submit(State(state): State<AppState>, body: Bytes) -> Response {
    let Ok(pairs) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body) else {
        return error_page(StatusCode::BAD_REQUEST, "the form is not valid");
    };
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
    let user =
        match state.catalog.login(get(&pairs, "username").unwrap_or(""), get(&pairs, "password").unwrap_or("")).await {
            Ok(user) => user,
            Err(_) => {
                return (
                    StatusCode::UNAUTHORIZED,
                    Html(login_form(&pairs, &request, Some("Wrong user name or password."))),
                )
                    .into_response();
            }
        };
    match state.catalog.issue_code(&request, &user).await {
        Ok(code) => {
            let params = with_state(vec![("code", code.into_inner())]);
            let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            redirect_with(&request.redirect_uri, &refs)
        }
        Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// Client credentials from `Authorization: Basic base64(id:secret)`.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ").or_else(|| value.strip_prefix("basic "))?;
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

/// `POST /api/token`.
pub async fn token(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Result<Response, OAuthError> {
    let pairs = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body)
        .map_err(|_| catalog_core::CatalogError::invalid("the body must be application/x-www-form-urlencoded"))?;
    let field = |n: &str| get(&pairs, n).map(str::to_owned);
    let (basic_id, basic_secret) = basic_credentials(&headers).map_or((None, None), |(i, s)| (Some(i), Some(s)));
    let request = TokenRequest {
        grant_type: field("grant_type").unwrap_or_default(),
        code: field("code"),
        redirect_uri: field("redirect_uri"),
        code_verifier: field("code_verifier"),
        refresh_token: field("refresh_token"),
        client_id: basic_id.or_else(|| field("client_id")),
        client_secret: basic_secret.or_else(|| field("client_secret")),
        scope: field("scope"),
    };
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
