//! `/api/v1/projects/{slug}/mock/...`: the mock's settings, overrides (with
//! export and import) and request log, behind the role gate.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::mock::{ImportMode, LogEntry};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};

/// Largest JSON body of these routes (an import bundle of 50 overrides at
/// their maximum size is ~13 MB; bundles that large are refused here).
const MAX_JSON_BYTES: usize = 2 * 1024 * 1024;

pub(crate) async fn json_body(headers: &HeaderMap, body: Body) -> Result<Value, ApiError> {
    crate::extract::read_json(headers, body, MAX_JSON_BYTES).await
}

pub async fn get_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let settings = state.hub.get_mock_settings(&caller, &slug).await?;
    Ok(Json(settings).into_response())
}

pub async fn update_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let patch = json_body(&headers, body).await?;
    let settings = state.hub.update_mock_settings(&caller, &slug, &patch, Source::Api).await?;
    Ok(Json(settings).into_response())
}

pub async fn list_overrides(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let items = state.hub.list_mock_overrides(&caller, &slug).await?;
    Ok(Json(json!({ "items": items, "limit": mock::overrides::MAX_OVERRIDES })).into_response())
}

pub async fn create_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let body = json_body(&headers, body).await?;
    let created = state.hub.create_mock_override(&caller, &slug, &body, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

pub async fn get_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(state.hub.get_mock_override(&caller, &slug, &id).await?).into_response())
}

pub async fn update_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let patch = json_body(&headers, body).await?;
    Ok(Json(state.hub.update_mock_override(&caller, &slug, &id, &patch, Source::Api).await?).into_response())
}

pub async fn delete_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.delete_mock_override(&caller, &slug, &id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn duplicate_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let copy = state.hub.duplicate_mock_override(&caller, &slug, &id, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(copy)).into_response())
}

pub async fn export_overrides(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let bundle = state.hub.export_mock_overrides(&caller, &slug).await?;
    let disposition = format!("attachment; filename=\"{slug}-mock-overrides.json\"");
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(bundle)).into_response())
}

pub async fn import_overrides(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let mode = match query.get("mode").unwrap_or("merge") {
        "merge" => ImportMode::Merge,
        "replace" => ImportMode::Replace,
        _ => return Err(ApiError::field("mode", "mode must be merge or replace")),
    };
    let bundle = json_body(&headers, body).await?;
    let report = state.hub.import_mock_overrides(&caller, &slug, &bundle, mode, Source::Api).await?;
    Ok(Json(report).into_response())
}

pub async fn requests(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let limit = query.non_negative("limit")?.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::field("limit", "limit must be between 1 and 500"));
    }
    let before = query.integer("before")?;
    let limit = u32::try_from(limit).unwrap_or(500);
    let rows = state.hub.mock_requests(&caller, &slug, limit, before).await?;
    let next_before = if rows.len() == limit as usize { rows.last().and_then(|r| r.id) } else { None };
    let items: Vec<Value> = rows.iter().map(log_row).collect();
    Ok(Json(json!({ "items": items, "next_before": next_before })).into_response())
}

fn log_row(entry: &LogEntry) -> Value {
    let at = chrono::DateTime::from_timestamp_millis(entry.at)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    json!({
        "id": entry.id,
        "at": at,
        "method": entry.method,
        "path": entry.path,
        "query": entry.query,
        "status": entry.status,
        "synth": entry.synth,
        "override_id": entry.override_id,
        "version": entry.version,
        "duration_ms": entry.duration_us as f64 / 1000.0,
        "client_ip": entry.client_ip,
    })
}
