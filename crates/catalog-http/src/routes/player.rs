//! Spotify's player routes, acting on the user's active device. Reads
//! answer 204 when nothing is playing; commands answer 204, or Spotify's
//! player error (`NO_ACTIVE_DEVICE`, ...) when they cannot be carried out.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use catalog_core::ids::ItemUri;
use catalog_core::playback::Repeat;
use catalog_core::player::{Offset, PlayRequest};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, LimitedBody, Query, json_body};

const READ_STATE: &str = "user-read-playback-state";
const READ_CURRENT: &str = "user-read-currently-playing";
const MODIFY: &str = "user-modify-playback-state";

type Done = Result<StatusCode, ApiError>;

fn device_id(q: &Query) -> Option<&str> {
    q.get("device_id").filter(|d| !d.is_empty())
}

/// `GET /me/player`: 204 when no device is active.
pub async fn state(State(s): State<AppState>, Auth(a): Auth) -> Result<Response, ApiError> {
    let user = a.user(&[READ_STATE])?;
    Ok(match s.catalog.now_playing(user).await? {
        Some(now) => Json(s.wire_at(&a).playback(&now, true)).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

/// `GET /me/player/currently-playing`: 204 when nothing is loaded.
pub async fn currently_playing(State(s): State<AppState>, Auth(a): Auth) -> Result<Response, ApiError> {
    let user = a.user_any(&[READ_CURRENT, READ_STATE])?;
    Ok(match s.catalog.now_playing(user).await?.filter(|n| n.item.is_some()) {
        Some(now) => Json(s.wire_at(&a).playback(&now, false)).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

pub async fn devices(State(s): State<AppState>, Auth(a): Auth) -> Result<Json<Value>, ApiError> {
    let user = a.user(&[READ_STATE])?;
    let w = s.wire_at(&a);
    let devices: Vec<Value> = s.catalog.devices(user).await?.iter().map(|d| w.device(d)).collect();
    Ok(Json(json!({ "devices": devices })))
}

pub async fn queue(State(s): State<AppState>, Auth(a): Auth) -> Result<Json<Value>, ApiError> {
    let user = a.user_any(&[READ_STATE, READ_CURRENT])?;
    let (current, next) = s.catalog.queue(user).await?;
    let w = s.wire_at(&a);
    Ok(Json(json!({
        "currently_playing": current.as_ref().map(|p| w.playable(p)),
        "queue": next.iter().map(|p| w.playable(p)).collect::<Vec<_>>(),
    })))
}

/// `PUT /me/player`: `{"device_ids": [id], "play": bool}`.
pub async fn transfer(State(s): State<AppState>, Auth(a): Auth, LimitedBody(body): LimitedBody) -> Done {
    let user = a.user(&[MODIFY])?;
    let body = json_body(&body)?;
    let ids: Vec<String> = body
        .get("device_ids")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::bad_request("Missing required field device_ids"))?
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| ApiError::bad_request("device_ids must be strings")))
        .collect::<Result<_, _>>()?;
    let play = match body.get("play") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(ApiError::bad_request("play must be a boolean")),
    };
    s.catalog.transfer(user, &ids, play).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn non_negative(value: &Value, name: &str) -> Result<u64, ApiError> {
    value.as_u64().ok_or_else(|| ApiError::bad_request(format!("{name} must be a non-negative integer")))
}

fn play_request(body: &Value) -> Result<PlayRequest, ApiError> {
    let uri = |v: &Value, name: &str| -> Result<ItemUri, ApiError> {
        let raw = v.as_str().ok_or_else(|| ApiError::bad_request(format!("{name} must be a string")))?;
        Ok(ItemUri::parse(raw)?)
    };
    let context_uri = match body.get("context_uri") {
        None | Some(Value::Null) => None,
        Some(v) => Some(uri(v, "context_uri")?),
    };
    let uris = match body.get("uris") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list.iter().map(|v| uri(v, "uris")).collect::<Result<_, _>>()?,
        Some(_) => return Err(ApiError::bad_request("uris must be an array")),
    };
    let offset = match body.get("offset") {
        None | Some(Value::Null) => None,
        Some(o) => match (o.get("position"), o.get("uri")) {
            (Some(p), None) => Some(Offset::Position(non_negative(p, "offset.position")?)),
            (None, Some(u)) => Some(Offset::Uri(uri(u, "offset.uri")?)),
            _ => return Err(ApiError::bad_request("offset must have either position or uri")),
        },
    };
    let position_ms = match body.get("position_ms") {
        None | Some(Value::Null) => None,
        Some(p) => Some(non_negative(p, "position_ms")?),
    };
    Ok(PlayRequest { context_uri, uris, offset, position_ms })
}

pub async fn play(State(s): State<AppState>, Auth(a): Auth, q: Query, LimitedBody(body): LimitedBody) -> Done {
    let user = a.user(&[MODIFY])?;
    let request = play_request(&json_body(&body)?)?;
    s.catalog.play(user, device_id(&q), request).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn pause(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    s.catalog.pause(user, device_id(&q)).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn next(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    s.catalog.skip_next(user, device_id(&q)).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn previous(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    s.catalog.skip_previous(user, device_id(&q)).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn seek(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    let position =
        q.integer("position_ms")?.ok_or_else(|| ApiError::bad_request("Missing required parameter position_ms"))?;
    let position = u64::try_from(position).map_err(|_| ApiError::bad_request("position_ms must not be negative"))?;
    s.catalog.seek(user, device_id(&q), position).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn repeat(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    let state = Repeat::parse(q.required("state")?)
        .ok_or_else(|| ApiError::bad_request("state must be track, context or off"))?;
    s.catalog.set_repeat(user, device_id(&q), state).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn shuffle(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    let on = match q.required("state")? {
        "true" => true,
        "false" => false,
        _ => return Err(ApiError::bad_request("state must be true or false")),
    };
    s.catalog.set_shuffle(user, device_id(&q), on).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn volume(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    let percent = q
        .integer("volume_percent")?
        .and_then(|v| u32::try_from(v).ok())
        .filter(|v| *v <= 100)
        .ok_or_else(|| ApiError::bad_request("volume_percent must be an integer from 0 to 100"))?;
    s.catalog.set_volume(user, device_id(&q), percent).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn add_to_queue(State(s): State<AppState>, Auth(a): Auth, q: Query) -> Done {
    let user = a.user(&[MODIFY])?;
    let uri = ItemUri::parse(q.required("uri")?)?;
    s.catalog.enqueue(user, device_id(&q), &uri).await?;
    Ok(StatusCode::NO_CONTENT)
}
