//! `/api/cron/*`: scheduled work, also reachable on demand with the cron
//! secret (the scheduler in every node runs the same functions).

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::response::{IntoResponse, Response};
use platform::crypto::constant_time_eq;
use serde_json::json;

use crate::AppState;
use crate::error::{ApiError, unauthorized};

fn check_cron_secret(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let presented =
        headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer ")).unwrap_or("");
    if constant_time_eq(presented.as_bytes(), state.cron_secret.expose().as_bytes()) {
        Ok(())
    } else {
        Err(unauthorized())
    }
}

pub async fn previews_prune(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    check_cron_secret(&state, &headers)?;
    let removed = state.hub.prune_expired_previews().await?;
    Ok(Json(json!({ "job": "previews-prune", "removed": removed })).into_response())
}

pub async fn customizations_prune(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    check_cron_secret(&state, &headers)?;
    let removed = state.hub.prune_customizations().await?;
    Ok(Json(json!({ "job": "customizations-prune", "removed": removed })).into_response())
}

pub async fn mock_log_prune(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    check_cron_secret(&state, &headers)?;
    let removed = state.hub.prune_mock_log().await?;
    Ok(Json(json!({ "job": "mock-log-prune", "removed": removed })).into_response())
}

/// One uptime round now: every monitored operation is probed once.
pub async fn uptime(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    check_cron_secret(&state, &headers)?;
    let probed = state.hub.run_uptime_round().await?;
    Ok(Json(json!({ "job": "uptime", "probed": probed })).into_response())
}
