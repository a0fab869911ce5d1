//! The developer page's API, `/api/apps`: a listener's own OAuth apps.
//! Not part of Spotify's Web API (Spotify keeps this on its developer
//! dashboard), so it lives beside `/api/token` rather than under `/v1`, and
//! answers only the catalog's own listener app ([`Developer`]). Its bearer
//! token is never sent by a browser on its own, so no CSRF token is needed.
//! Secrets appear only in the answer that made them, with `no-store`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_core::apps::{DeveloperApp, Flow, NewApp};
use catalog_core::limits::RateUsage;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Developer, LimitedBody, json_body};

fn app_json(app: &DeveloperApp, usage: RateUsage) -> Value {
    json!({
        "client_id": app.client_id,
        "name": app.name,
        "redirect_uris": app.redirect_uris,
        "flows": app.flows.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
        "created_at": app.created_at.to_rfc3339(),
        "rate_limit": {
            "used": usage.used,
            "limit": usage.limit,
            "window_secs": usage.window_secs,
            "resets_in_secs": usage.resets_in_secs,
        },
    })
}

/// The form's fields: `{"name", "redirect_uris": [...], "flows": [...]}`.
fn new_app(body: &[u8]) -> Result<NewApp, ApiError> {
    let body = json_body(body)?;
    let name =
        body.get("name").and_then(Value::as_str).ok_or_else(|| ApiError::bad_request("Missing required field name"))?;
    let flows = strings(&body, "flows")?.iter().map(|f| Flow::parse(f)).collect::<Result<Vec<_>, _>>()?;
    Ok(NewApp { name: name.to_owned(), redirect_uris: strings(&body, "redirect_uris")?, flows })
}

fn no_store(status: StatusCode, body: Value) -> Response {
    let mut response = (status, Json(body)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn strings(body: &Value, field: &str) -> Result<Vec<String>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_owned).ok_or_else(|| ApiError::bad_request(format!("{field} must hold strings")))
            })
            .collect(),
        Some(_) => Err(ApiError::bad_request(format!("{field} must be an array of strings"))),
    }
}

/// `GET /api/apps`: `{"items": [...]}`, without secrets, each with the
/// rate-limit budget it has spent in its current window (across nodes when
/// the limits are shared).
pub async fn list(State(s): State<AppState>, Developer(user): Developer) -> Result<Response, ApiError> {
    let apps = s.catalog.developer_apps(&user).await?;
    let mut items: Vec<Value> = Vec::with_capacity(apps.len());
    for app in &apps {
        items.push(app_json(app, s.catalog.app_rate_usage(&app.client_id).await));
    }
    Ok(no_store(StatusCode::OK, json!({ "items": items })))
}

/// `POST /api/apps` `{"name", "redirect_uris": [...], "flows": [...]}`:
/// 201 with the app and its `client_secret`, shown this once.
pub async fn create(
    State(s): State<AppState>,
    Developer(user): Developer,
    LimitedBody(body): LimitedBody,
) -> Result<Response, ApiError> {
    let (app, secret) = s.catalog.create_developer_app(&user, &new_app(&body)?).await?;
    let mut answer = app_json(&app, s.catalog.app_rate_usage(&app.client_id).await);
    if let Some(map) = answer.as_object_mut() {
        map.insert("client_secret".to_owned(), json!(secret.expose()));
    }
    Ok(no_store(StatusCode::CREATED, answer))
}

/// `PUT /api/apps/{client_id}` with the creation form's fields: the app
/// as changed (its secret stays).
pub async fn update(
    State(s): State<AppState>,
    Developer(user): Developer,
    Path(client_id): Path<String>,
    LimitedBody(body): LimitedBody,
) -> Result<Response, ApiError> {
    let app = s.catalog.update_developer_app(&user, &client_id, &new_app(&body)?).await?;
    Ok(no_store(StatusCode::OK, app_json(&app, s.catalog.app_rate_usage(&app.client_id).await)))
}

/// `POST /api/apps/{client_id}/secret`: `{"client_secret"}`, shown this
/// once; the old secret stops working.
pub async fn rotate(
    State(s): State<AppState>,
    Developer(user): Developer,
    Path(client_id): Path<String>,
) -> Result<Response, ApiError> {
    let secret = s.catalog.rotate_app_secret(&user, &client_id).await?;
    Ok(no_store(StatusCode::OK, json!({ "client_id": client_id, "client_secret": secret.expose() })))
}

/// `DELETE /api/apps/{client_id}`: 204; its tokens stop working.
pub async fn delete(
    State(s): State<AppState>,
    Developer(user): Developer,
    Path(client_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.catalog.delete_developer_app(&user, &client_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
