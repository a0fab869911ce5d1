//! The administration page's API, `/api/admin`: scans with their progress
//! and per-file problems, and the listeners with their apps. Only the
//! listener app's tokens reach it ([`Operator`]), and only an operator's
//! get past the use cases; anyone else gets 404.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_core::admin::ScanRun;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{LimitedBody, Operator, json_body};

fn run_json(run: Option<&ScanRun>) -> Value {
    let Some(run) = run else { return json!({ "scan": null }) };
    let p = &run.progress;
    json!({ "scan": {
        "dir": run.dir,
        "started_at": run.started_at.to_rfc3339(),
        "finished": run.finished,
        "error": run.error,
        "done": p.done, "total": p.total, "added": p.added, "unchanged": p.unchanged,
        "failed": p.failed, "removed": p.removed, "current": p.current,
        "problems": p.problems.iter().map(|q| json!({ "path": q.path, "problem": q.problem, "imported": q.imported })).collect::<Vec<_>>(),
    }})
}

/// `GET /api/admin/scan`: the last scan started on this node.
pub async fn scan_status(State(s): State<AppState>, Operator(user): Operator) -> Result<Json<Value>, ApiError> {
    Ok(Json(run_json(s.catalog.scan_status(&user).await?.as_ref())))
}

/// `POST /api/admin/scan` `{"dir"}`: 202, the scan runs in the background.
pub async fn start_scan(
    State(s): State<AppState>,
    Operator(user): Operator,
    LimitedBody(body): LimitedBody,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = json_body(&body)?;
    let dir =
        body.get("dir").and_then(Value::as_str).ok_or_else(|| ApiError::bad_request("Missing required field dir"))?;
    let run = s.catalog.start_scan(&user, dir).await?;
    Ok((StatusCode::ACCEPTED, Json(run_json(Some(&run)))))
}

/// `GET /api/admin/users`: every listener with the apps they made.
pub async fn users(State(s): State<AppState>, Operator(user): Operator) -> Result<Json<Value>, ApiError> {
    let accounts = s.catalog.listener_accounts(&user).await?;
    Ok(Json(json!({ "items": accounts.iter().map(|a| json!({
        "id": a.user.id,
        "username": a.user.username,
        "operator": a.operator,
        "disabled": a.disabled,
        "created_at": a.user.created_at.to_rfc3339(),
        "apps": a.apps.iter().map(|app| json!({ "client_id": app.client_id, "name": app.name, "flows": app.flows.iter().map(|f| f.as_str()).collect::<Vec<_>>() })).collect::<Vec<_>>(),
    })).collect::<Vec<_>>() })))
}

/// `POST /api/admin/users` `{"username", "operator": false}`: 201 with the
/// new listener and a generated `password`, shown this once (`no-store`).
pub async fn create_user(
    State(s): State<AppState>,
    Operator(user): Operator,
    LimitedBody(body): LimitedBody,
) -> Result<Response, ApiError> {
    let body = json_body(&body)?;
    let username = body
        .get("username")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("Missing required field username"))?;
    let operator = match body.get("operator") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::bad_request("operator must be true or false")),
    };
    let (made, password) = s.catalog.create_listener(&user, username, operator).await?;
    let mut response = (
        StatusCode::CREATED,
        Json(json!({
            "id": made.id,
            "username": made.username,
            "operator": operator,
            "disabled": false,
            "created_at": made.created_at.to_rfc3339(),
            "password": password.expose(),
        })),
    )
        .into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `PUT /api/admin/users/{id}` `{"disabled": true}`: 204.
pub async fn update_user(
    State(s): State<AppState>,
    Operator(user): Operator,
    Path(id): Path<String>,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let body = json_body(&body)?;
    let disabled = body
        .get("disabled")
        .and_then(Value::as_bool)
        .ok_or_else(|| ApiError::bad_request("disabled must be true or false"))?;
    s.catalog.set_listener_disabled(&user, &id, disabled).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/admin/users/{id}`: 204; everything of theirs goes.
pub async fn delete_user(
    State(s): State<AppState>,
    Operator(user): Operator,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.catalog.delete_listener(&user, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
