//! `/api/v1/projects/{slug}/{branding,theme,customization,endpoint-docs}`:
//! the docs' look and extra content, behind the role gate, audited.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};
use crate::routes::mock::json_body;

pub async fn get_branding(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.hub.branding(&caller, &slug).await?).into_response())
}

pub async fn put_branding(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    Ok(Json(state.hub.update_branding(&caller, &slug, &body, Source::Api).await?).into_response())
}

pub async fn get_theme(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let theme = state.hub.theme(&caller, &slug).await?.unwrap_or_default();
    Ok(Json(theme).into_response())
}

pub async fn put_theme(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    Ok(Json(state.hub.update_theme(&caller, &slug, &body, Source::Api).await?).into_response())
}

pub async fn get_customization(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.hub.customization(&caller, &slug).await?).into_response())
}

pub async fn put_customization(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    Ok(Json(state.hub.update_customization(&caller, &slug, &body, Source::Api).await?).into_response())
}

pub async fn list_endpoint_docs(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let items = state.hub.list_endpoint_markdown(&caller, &slug, query.get("version")).await?;
    Ok(Json(json!({ "items": items })).into_response())
}

pub async fn put_endpoint_docs(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    let entry = state.hub.put_endpoint_markdown(&caller, &slug, &body, Source::Api).await?;
    Ok(Json(json!({ "item": entry })).into_response())
}

/// `PUT /api/v1/projects/{slug}/docs-password`: `{"password": "..."}` sets
/// it, `{"password": null}` removes it.
pub async fn put_password(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    let map = body.as_object().ok_or_else(|| ApiError::field("body", "the body must be a JSON object"))?;
    if let Some(unknown) = map.keys().find(|k| *k != "password") {
        return Err(ApiError::field(unknown, "unknown field; allowed: password"));
    }
    let password = match map.get("password") {
        Some(serde_json::Value::String(p)) => Some(p.as_str()),
        Some(serde_json::Value::Null) => None,
        _ => return Err(ApiError::field("password", "password must be a string or null")),
    };
    let protected = state.hub.set_docs_password(&caller, &slug, password, Source::Api).await?;
    Ok(Json(json!({ "password_protected": protected })).into_response())
}
