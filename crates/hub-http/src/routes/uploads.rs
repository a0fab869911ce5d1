//! Per-project upload tokens (`/api/projects/{slug}/upload-token`) and the
//! upload endpoint they authenticate (`/api/projects/{slug}/upload`), used by
//! `svc push` with a `svc_` token.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::versions::PushVersion;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};
use crate::routes::versions::{push_parameters, push_response, read_spec};

/// Mints a new upload token (the previous one stops working); shown once.
pub async fn rotate(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let token = state.hub.rotate_upload_token(&caller, &slug, Source::Api).await?;
    let body = json!({
        "project": slug,
        "upload_token": token.expose(),
        "note": "store this token now: it is shown only once",
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Pushes a spec with the project's upload token: same query parameters as
/// the v1 push except previews, same answers.
pub async fn upload(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    query: QueryParams,
    axum::Extension(docs): axum::Extension<std::sync::Arc<crate::docs_site::DocsServer>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let push = push_parameters(&query)?;
    let authorization = headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    let caller = state.hub.authenticate_upload(&slug, authorization).await?;
    let document = read_spec(&headers, body).await?;
    let outcome = state.hub.push_with_upload_token(&caller, PushVersion { body: document, ..push }).await?;
    docs.prepare(outcome.version.spec_sha256.clone());
    Ok(push_response(&slug, outcome))
}

/// The document of the project's default version, as pushed, for `svc push
/// --fail-on-breaking`. Accepts a personal access token or the project's
/// upload token.
pub async fn default_spec(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let authorization = headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    let is_personal =
        authorization.is_some_and(|h| h.split_whitespace().nth(1).is_some_and(|t| t.starts_with("svc_pat_")));
    let principal = if is_personal {
        state.hub.authenticate(authorization).await?
    } else {
        state.hub.authenticate_upload(&slug, authorization).await?.owner().clone()
    };
    let (version, document) = state.hub.default_document(&principal, &slug).await?;
    let content_type = match version.spec_format.as_str() {
        "graphql" => "application/graphql",
        _ if document.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') => "application/json",
        _ => "application/yaml",
    };
    Ok(([(axum::http::header::CONTENT_TYPE, content_type)], document).into_response())
}

/// `POST /api/v1/projects/{slug}/mcp-token`: mints a new MCP token for the
/// project's MCP server (the previous one stops working); shown once.
pub async fn rotate_mcp(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let token = state.hub.rotate_mcp_token(&caller, &slug, Source::Api).await?;
    let body = json!({
        "project": slug,
        "mcp_token": token.expose(),
        "mcp_url": format!("{}/api/mcp/{slug}", state.web.public_url.trim_end_matches('/')),
        "note": "store this token now: it is shown only once",
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}
