//! `/api/v1/inboxes`: webhook inboxes, their captures, replay and the test
//! event; and `/i/<id>[/<path>]`, where senders deliver.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::inboxes::{
    Arrival, CaptureOverrideInput, InboxInput, MAX_CAPTURE_BYTES, MAX_CAPTURE_HEADERS, Refusal, capture_event_json,
    capture_json, inbox_json,
};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::{ApiError, Code};
use crate::extract::{Caller, JsonObject, QueryParams};

/// Where senders deliver to an inbox: on the tenant-content origin when
/// there is one.
pub fn capture_url(web: &crate::WebConfig, id: &str) -> String {
    let origin = web.mock_public_url.as_deref().unwrap_or(&web.public_url);
    format!("{origin}/i/{id}")
}

pub async fn list(State(state): State<AppState>, Caller(caller): Caller) -> Result<Response, ApiError> {
    let inboxes = state.hub.inboxes(&caller).await?;
    let data: Vec<Value> = inboxes.iter().map(|i| inbox_json(i, &capture_url(&state.web, &i.id))).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

pub async fn create(
    State(state): State<AppState>,
    Caller(caller): Caller,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: InboxInput = body.deserialize()?;
    if input.state.is_some() {
        return Err(ApiError::field("state", "a new inbox is live; PATCH it to pause it"));
    }
    let inbox = state.hub.create_inbox(&caller, input, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(inbox_json(&inbox, &capture_url(&state.web, &inbox.id)))).into_response())
}

pub async fn get(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let inbox = state.hub.inbox(&caller, &id).await?;
    Ok(Json(inbox_json(&inbox, &capture_url(&state.web, &inbox.id))).into_response())
}

pub async fn update(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    let input: InboxInput = body.deserialize()?;
    let inbox = state.hub.update_inbox(&caller, &id, input, Source::Api).await?;
    Ok(Json(inbox_json(&inbox, &capture_url(&state.web, &inbox.id))).into_response())
}

pub async fn delete(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    state.hub.delete_inbox(&caller, &id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn captures(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let limit = match query.non_negative("limit")? {
        None => 50,
        Some(l @ 1..=100) => u32::try_from(l).unwrap_or(100),
        Some(_) => return Err(ApiError::field("limit", "limit is 1 to 100")),
    };
    if query.get("before").is_some_and(|b| b.chars().count() > 100) {
        return Err(ApiError::field("before", "before is a capture id, at most 100 characters"));
    }
    let captures = state.hub.inbox_captures(&caller, &id, limit, query.get("before"), query.get("q")).await?;
    let data: Vec<Value> = captures.iter().map(capture_json).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

pub async fn clear(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let removed = state.hub.clear_inbox(&caller, &id, Source::Api).await?;
    Ok(Json(json!({ "removed": removed })).into_response())
}

/// One capture, with what it is among the linked project's webhooks
/// (`webhook`: `null` when there is nothing to match against).
pub async fn get_capture(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, capture_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (capture, event) = state.hub.inbox_capture_event(&caller, &id, &capture_id).await?;
    let mut answer = capture_json(&capture);
    if let Value::Object(map) = &mut answer {
        map.insert("webhook".into(), event.as_ref().map_or(Value::Null, capture_event_json));
    }
    Ok(Json(answer).into_response())
}

pub async fn delete_capture(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, capture_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.delete_capture(&caller, &id, &capture_id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The capture as a mock override of the inbox's linked project.
pub async fn capture_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, capture_id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    // JSON numbers such as `203.0` are integers to the document's schema.
    let mut value = body.into_value();
    mock::overrides::integral_numbers_at(&mut value, &["/status"]);
    let input: CaptureOverrideInput =
        serde_json::from_value(value).map_err(|e| ApiError::field("body", e.to_string()))?;
    let created = state.hub.capture_to_override(&caller, &id, &capture_id, &input, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// The capture saved as a request of the inbox's linked project.
pub async fn capture_request(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, capture_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let saved = state.hub.capture_to_request(&caller, &id, &capture_id, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(hub_core::workbench::request_json(&saved))).into_response())
}

fn delivery_json((status, latency_ms, error): (Option<u16>, i64, Option<String>)) -> Value {
    json!({ "status": status, "latency_ms": latency_ms, "error": error })
}

pub async fn replay(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((id, capture_id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["url"])?;
    let url = body.string("url")?.ok_or_else(|| ApiError::field("url", "the URL to send the capture to"))?;
    let outcome = state.hub.replay_capture(&caller, &id, &capture_id, &url).await?;
    Ok(Json(delivery_json(outcome)).into_response())
}

pub async fn send_test(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["url"])?;
    let url = body.string("url")?;
    let outcome = state.hub.send_inbox_test(&caller, &id, url.as_deref()).await?;
    Ok(Json(delivery_json(outcome)).into_response())
}

/// State of the capture route: the hub and who may name a client address.
#[derive(Clone)]
pub struct CaptureState {
    pub hub: hub_core::Hub,
    pub proxies: platform::net::TrustedProxies,
}

/// Any method at `/i/<id>[/<path>]`: checked, then stored, or refused with
/// nothing stored. Served with the tenant-content headers, and the hub's
/// own cookies never reach the capture.
pub async fn capture(State(state): State<Arc<CaptureState>>, request: Request) -> Response {
    let mut response = match capture_inner(&state, request).await {
        Ok(response) => response,
        Err(err) => err.into_response(),
    };
    platform::http::tenant_content_headers(response.headers_mut());
    response
}

async fn capture_inner(state: &CaptureState, request: Request) -> Result<Response, ApiError> {
    let peer = crate::peer_ip(&request);
    let source_ip = state.proxies.client_ip(peer, request.headers());
    let (mut parts, body) = request.into_parts();
    let rest = parts.uri.path().strip_prefix("/i/").unwrap_or("");
    let (id, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    let (id, path) = (id.to_owned(), path.to_owned());
    if parts.headers.len() > MAX_CAPTURE_HEADERS {
        return Err(ApiError::new(
            Code::ValidationError,
            format!("an inbox keeps at most {MAX_CAPTURE_HEADERS} headers of a request"),
        ));
    }
    platform::web::remove_cookies(&mut parts.headers, crate::is_hub_cookie);
    let body = platform::http::read_body_limited(&parts.headers, body, MAX_CAPTURE_BYTES)
        .await
        .map_err(|e| ApiError::new(Code::PayloadTooLarge, e.to_string()))?;
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let arrival = Arrival {
        method: parts.method.to_string(),
        path: path.chars().take(2048).collect(),
        query: parts.uri.query().unwrap_or("").chars().take(2048).collect(),
        headers,
        body,
        source_ip,
    };
    match state.hub.capture(&id, arrival).await? {
        Ok(capture) => Ok(Json(json!({ "captured": capture.id })).into_response()),
        Err(refusal) => Err(refusal_error(refusal)),
    }
}

fn refusal_error(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::NotFound => ApiError::new(Code::NotFound, "no such inbox"),
        Refusal::Paused => ApiError::new(Code::InboxPaused, "this inbox is paused; send again later")
            .with_retry_after(hub_core::inboxes::PAUSED_RETRY_SECS),
        Refusal::AddressNotAllowed => {
            ApiError::new(Code::AddressNotAllowed, "this inbox does not take requests from your address")
        }
        Refusal::BasicAuthRequired => {
            ApiError::new(Code::AuthenticationRequired, "this inbox needs its HTTP Basic user name and password")
        }
        Refusal::Signature(why) => ApiError::new(Code::SignatureInvalid, why.to_string()),
        Refusal::OverCap { limit, window_days, retry_after_secs } => ApiError::new(
            Code::CaptureLimitReached,
            format!("this account's plan stores {limit} captures per {window_days} days"),
        )
        .with_details(json!({ "limit": limit, "window_days": window_days }))
        .with_retry_after(retry_after_secs),
    }
}

/// `/i/...` on the hub's origin when inboxes live on the tenant-content
/// origin: 308 there, so senders keep method and body.
pub async fn redirect(State(origin): State<String>, uri: axum::http::Uri) -> Response {
    crate::mock_server::redirect(State(origin), uri).await
}
