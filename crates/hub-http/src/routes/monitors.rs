//! `/api/v1/projects/{slug}/monitors`: uptime monitors per operation, their
//! checks and the credentials probes send.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::monitoring::{MonitorPatch, check_json, monitor_json};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonObject, QueryParams};

/// `?version=`: absent is the default version; present, it names one.
fn version(query: &QueryParams) -> Result<Option<&str>, ApiError> {
    match query.get("version") {
        Some("") => Err(ApiError::field("version", "version names a version label; leave it out for the default")),
        other => Ok(other),
    }
}

pub async fn list(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let (version, rows) = state.hub.list_monitors(&caller, &slug, version(&query)?).await?;
    let data: Vec<Value> = rows.iter().map(monitor_json).collect();
    Ok(Json(json!({ "version": version.label, "data": data })).into_response())
}

/// A JSON object of string values (`{"owner": "octocat"}`); numbers and
/// booleans are taken as their text.
fn string_map(body: &JsonObject, name: &str) -> Result<Option<BTreeMap<String, String>>, ApiError> {
    let Some(value) = body.get(name) else { return Ok(None) };
    let Value::Object(map) = value else {
        return Err(ApiError::field(name, format!("{name} must be an object of names to values")));
    };
    let mut out = BTreeMap::new();
    for (key, value) in map {
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(ApiError::field(name, format!("{name}.{key} must be a string, number or boolean"))),
        };
        out.insert(key.clone(), text);
    }
    Ok(Some(out))
}

pub async fn update(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["monitored", "path_params", "query"])?;
    let patch = MonitorPatch {
        monitored: body.boolean("monitored")?,
        path_params: string_map(&body, "path_params")?,
        query: string_map(&body, "query")?,
    };
    let row = state.hub.update_monitor(&caller, &slug, &id, patch, Source::Api).await?;
    Ok(Json(monitor_json(&row)).into_response())
}

pub async fn checks(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let limit = query.non_negative("limit")?.map_or(50, |l| u32::try_from(l.clamp(1, 100)).unwrap_or(100));
    let (_, checks) = state.hub.monitor_checks(&caller, &slug, &id, limit).await?;
    let data: Vec<Value> = checks.iter().map(check_json).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

pub async fn credentials(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let slots = state.hub.monitor_credentials(&caller, &slug, version(&query)?).await?;
    let data: Vec<Value> = slots.iter().map(|s| json!({ "scheme": s.scheme, "kind": s.kind, "set": s.set })).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

pub async fn put_credential(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, scheme)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["value"])?;
    let value = body.string("value")?.ok_or_else(|| ApiError::field("value", "value is required"))?;
    state.hub.set_monitor_credential(&caller, &slug, &scheme, Some(&value), Source::Api).await?;
    Ok(Json(json!({ "scheme": scheme, "set": true })).into_response())
}

pub async fn delete_credential(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, scheme)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.set_monitor_credential(&caller, &slug, &scheme, None, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn status(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let view = state.hub.monitor_status(&caller, &slug, version(&query)?).await?;
    Ok(Json(hub_core::monitoring::status_json(&view)).into_response())
}
