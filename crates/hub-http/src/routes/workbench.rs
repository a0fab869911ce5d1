//! `/api/v1/projects/{slug}/environments` and `/requests`: saved requests
//! with environments, their runs, Postman interchange and copy as curl.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::workbench::{EnvironmentInput, RequestInput, environment_json, outcome_json, request_json, run_json};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonObject, QueryParams};

pub async fn list_environments(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let (listed, active) = state.hub.environments(&caller, &slug).await?;
    let data: Vec<Value> =
        listed.iter().map(|e| environment_json(e, active.as_deref() == Some(e.id.as_str()))).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

pub async fn create_environment(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: EnvironmentInput = body.deserialize()?;
    let (env, active) = state.hub.create_environment(&caller, &slug, input, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(environment_json(&env, active))).into_response())
}

pub async fn get_environment(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (env, active) = state.hub.environment(&caller, &slug, &id).await?;
    Ok(Json(environment_json(&env, active)).into_response())
}

pub async fn update_environment(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: EnvironmentInput = body.deserialize()?;
    let (env, active) = state.hub.update_environment(&caller, &slug, &id, input, Source::Api).await?;
    Ok(Json(environment_json(&env, active)).into_response())
}

pub async fn delete_environment(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.delete_environment(&caller, &slug, &id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn list_requests(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let listed = state.hub.saved_requests(&caller, &slug).await?;
    Ok(Json(json!({ "data": listed.iter().map(request_json).collect::<Vec<_>>() })).into_response())
}

pub async fn create_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: RequestInput = body.deserialize()?;
    let made = state.hub.create_saved_request(&caller, &slug, input, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(request_json(&made))).into_response())
}

pub async fn get_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let found = state.hub.saved_request(&caller, &slug, &id).await?;
    Ok(Json(request_json(&found)).into_response())
}

pub async fn update_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: RequestInput = body.deserialize()?;
    let changed = state.hub.update_saved_request(&caller, &slug, &id, input, Source::Api).await?;
    Ok(Json(request_json(&changed)).into_response())
}

pub async fn delete_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.delete_saved_request(&caller, &slug, &id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn run_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["environment"])?;
    let environment = body.string("environment")?;
    let outcome = state.hub.run_saved_request(&caller, &slug, &id, environment.as_deref()).await?;
    Ok(Json(outcome_json(&outcome)).into_response())
}

pub async fn request_runs(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let runs = state.hub.request_runs(&caller, &slug, &id).await?;
    Ok(Json(json!({ "data": runs.iter().map(run_json).collect::<Vec<_>>() })).into_response())
}

pub async fn request_curl(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let command = state.hub.request_curl(&caller, &slug, &id, query.get("environment")).await?;
    Ok(Json(json!({ "command": command })).into_response())
}

/// `?format=postman` (the collection) or `?format=postman-environment&
/// environment=ID[&secrets=include]`.
pub async fn export(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let with_secrets = match query.get("secrets") {
        None | Some("omit") => false,
        Some("include") => true,
        Some(_) => return Err(ApiError::field("secrets", "`include` or `omit`")),
    };
    if query.get("environment").is_some_and(|e| e.chars().count() > 100) {
        return Err(ApiError::field("environment", "an environment id, at most 100 characters"));
    }
    let (document, file) = match query.get("format").unwrap_or("postman") {
        "postman" => {
            (state.hub.export_saved_requests(&caller, &slug).await?, format!("{slug}.postman_collection.json"))
        }
        "postman-environment" => {
            let id = query
                .get("environment")
                .filter(|e| !e.is_empty())
                .ok_or_else(|| ApiError::field("environment", "the id of the environment to export"))?;
            let document = state.hub.export_environment(&caller, &slug, id, with_secrets, Source::Api).await?;
            (document, format!("{slug}.postman_environment.json"))
        }
        _ => return Err(ApiError::field("format", "`postman` or `postman-environment`")),
    };
    let disposition = format!("attachment; filename=\"{file}\"");
    Ok(([(axum::http::header::CONTENT_DISPOSITION, disposition)], Json(document)).into_response())
}

pub async fn import(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let bytes = crate::extract::read_limited(&headers, body, workbench::postman::MAX_IMPORT_BYTES).await?;
    let report = state.hub.import_saved_requests(&caller, &slug, &bytes, Source::Api).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "imported": report.imported, "environment": report.environment, "skipped": report.skipped })),
    )
        .into_response())
}
