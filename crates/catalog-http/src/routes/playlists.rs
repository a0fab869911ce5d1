//! Playlists, with both the `/items` routes and the deprecated `/tracks`
//! ones (which behave identically).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use catalog_core::ids::{ItemKind, ItemUri, parse_id};
use catalog_core::playlists::{Removal, Reorder};
use catalog_core::store::PlaylistDetails;
use catalog_core::{Access, CatalogError, Window};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, COVER_BODY_LIMIT, LimitedBody, Query, json_body};

type ApiResult = Result<Json<Value>, ApiError>;

const MODIFY: [&str; 2] = ["playlist-modify-public", "playlist-modify-private"];

async fn items_page(s: &AppState, a: &Access, id: &str, q: &Query, window: Window) -> Result<Value, ApiError> {
    let page = s.catalog.playlist_items(id, a, window).await?;
    let w = s.wire_at(a);
    Ok(w.paging(q, page.items.iter().map(|i| w.playlist_item(i)).collect(), window, page.total))
}

pub async fn get(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let id = parse_id(&id, ItemKind::Playlist)?;
    let playlist = s.catalog.playlist(&id, &a).await?;
    let iq = Query { path: format!("/v1/playlists/{id}/items"), pairs: Vec::new() };
    let items = items_page(&s, &a, &id, &iq, Window::new(100, 0)).await?;
    Ok(Json(s.wire_at(&a).playlist(&playlist, &items)))
}

pub async fn items(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let id = parse_id(&id, ItemKind::Playlist)?;
    let window = q.window(100, 100)?;
    Ok(Json(items_page(&s, &a, &id, &q, window).await?))
}

fn details(body: &Value) -> Result<PlaylistDetails, ApiError> {
    let text = |k: &str| -> Result<Option<String>, ApiError> {
        match body.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ApiError::bad_request(format!("{k} must be a string"))),
        }
    };
    let flag = |k: &str| -> Result<Option<bool>, ApiError> {
        match body.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ApiError::bad_request(format!("{k} must be true or false"))),
        }
    };
    Ok(PlaylistDetails {
        name: text("name")?,
        description: text("description")?,
        public: flag("public")?,
        collaborative: flag("collaborative")?,
    })
}

/// `POST /me/playlists` and `POST /users/{id}/playlists`: 201 with the playlist.
pub async fn create_for_user(
    state: State<AppState>,
    auth: Auth,
    Path(owner): Path<String>,
    body: LimitedBody,
) -> Result<Response, ApiError> {
    if auth.0.user_id.as_deref() != Some(owner.as_str()) {
        auth.0.user_any(&MODIFY)?;
        return Err(CatalogError::Forbidden("you may only create playlists for yourself".to_owned()).into());
    }
    create(state, auth, body).await
}

pub async fn create(State(s): State<AppState>, Auth(a): Auth, body: LimitedBody) -> Result<Response, ApiError> {
    let LimitedBody(body) = body;
    a.user_any(&MODIFY)?;
    let d = details(&json_body(&body)?)?;
    let public = d.public.unwrap_or(true);
    // Spotify: a public playlist needs playlist-modify-public, a private one playlist-modify-private.
    let user = a.user(&[if public { "playlist-modify-public" } else { "playlist-modify-private" }])?;
    let name = d.name.ok_or_else(|| ApiError::bad_request("Missing required field: name"))?;
    let playlist =
        s.catalog.create_playlist(user, &name, d.description, public, d.collaborative.unwrap_or(false)).await?;
    let iq = Query { path: format!("/v1/playlists/{}/items", playlist.id), pairs: Vec::new() };
    let empty = s.wire_at(&a).paging(&iq, Vec::new(), Window::new(100, 0), 0);
    Ok((StatusCode::CREATED, Json(s.wire_at(&a).playlist(&playlist, &empty))).into_response())
}

pub async fn change(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    s.catalog.change_playlist(&id, &a, details(&json_body(&body)?)?).await?;
    Ok(StatusCode::OK)
}

pub async fn mine(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&[])?;
    let window = q.window(20, 50)?;
    let page = s.catalog.playlists_of(user, &a, window).await?;
    let w = s.wire_at(&a);
    Ok(Json(w.paging(&q, page.items.iter().map(|p| w.playlist_simple(p)).collect(), window, page.total)))
}

pub async fn of_user(State(s): State<AppState>, Auth(a): Auth, Path(user): Path<String>, q: Query) -> ApiResult {
    let window = q.window(20, 50)?;
    let page = s.catalog.playlists_of(&user, &a, window).await?;
    let w = s.wire_at(&a);
    Ok(Json(w.paging(&q, page.items.iter().map(|p| w.playlist_simple(p)).collect(), window, page.total)))
}

/// Parses item URIs; which kinds a playlist may hold is the core's rule.
fn item_uris(uris: &[String]) -> Result<Vec<ItemUri>, ApiError> {
    uris.iter().map(|u| Ok(ItemUri::parse(u)?)).collect()
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// `POST .../items`: `uris` in the query or body, optional `position`; 201.
pub async fn add(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<Response, ApiError> {
    a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    let body = json_body(&body)?;
    let uris: Vec<String> = match q.get("uris").filter(|v| !v.is_empty()) {
        Some(list) => list.split(',').map(str::to_owned).collect(),
        // spotipy sends a bare JSON array of uris as the body.
        None if body.is_array() => string_list(Some(&body)),
        None => string_list(body.get("uris")),
    };
    let position = match (q.integer("position")?, body.get("position").and_then(Value::as_i64)) {
        (Some(p), _) | (None, Some(p)) => {
            Some(usize::try_from(p).map_err(|_| ApiError::bad_request("Invalid position"))?)
        }
        (None, None) => None,
    };
    let snapshot = s.catalog.add_playlist_items(&id, &a, &item_uris(&uris)?, position).await?;
    Ok((StatusCode::CREATED, Json(json!({ "snapshot_id": snapshot }))).into_response())
}

/// `PUT .../items`: replace with `uris`, or reorder with `range_start`,
/// `insert_before` and `range_length`.
pub async fn update(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> ApiResult {
    a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    let body = json_body(&body)?;
    let snapshot = if let Some(start) = body.get("range_start") {
        let num = |v: Option<&Value>, name: &str| -> Result<usize, ApiError> {
            v.and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| ApiError::bad_request(format!("{name} must be a non-negative integer")))
        };
        let reorder = Reorder {
            range_start: num(Some(start), "range_start")?,
            insert_before: num(body.get("insert_before"), "insert_before")?,
            range_length: match body.get("range_length") {
                None | Some(Value::Null) => 1,
                v => num(v, "range_length")?,
            },
        };
        let snapshot = body.get("snapshot_id").and_then(Value::as_str);
        s.catalog.reorder_playlist_items(&id, &a, reorder, snapshot).await?
    } else {
        let uris: Vec<String> = match q.get("uris") {
            Some(list) => list.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            None => string_list(body.get("uris")),
        };
        s.catalog.replace_playlist_items(&id, &a, &item_uris(&uris)?).await?
    };
    Ok(Json(json!({ "snapshot_id": snapshot })))
}

/// `DELETE .../items`: body `{"items": [{"uri", "positions"?}]}` (spotipy) or
/// `{"tracks": [...]}` (tekore and the deprecated route).
pub async fn remove(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    LimitedBody(body): LimitedBody,
) -> ApiResult {
    a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    let body = json_body(&body)?;
    let list = body.get("items").or_else(|| body.get("tracks")).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut removals = Vec::with_capacity(list.len());
    for entry in &list {
        let uri =
            entry.get("uri").and_then(Value::as_str).ok_or_else(|| ApiError::bad_request("each item needs a uri"))?;
        let id = ItemUri::parse(uri)?.id;
        let positions = entry
            .get("positions")
            .and_then(Value::as_array)
            .map(|p| p.iter().filter_map(Value::as_u64).filter_map(|n| usize::try_from(n).ok()).collect());
        removals.push(Removal { item_id: id, positions });
    }
    let against = body.get("snapshot_id").and_then(Value::as_str);
    let snapshot = s.catalog.remove_playlist_items(&id, &a, &removals, against).await?;
    Ok(Json(json!({ "snapshot_id": snapshot })))
}

pub async fn follow(
    State(s): State<AppState>,
    Auth(a): Auth,
    method: axum::http::Method,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let user = a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    if method == axum::http::Method::DELETE {
        s.catalog.unsave(user, ItemKind::Playlist, std::slice::from_ref(&id)).await?;
    } else {
        s.catalog.follow_playlist(&a, &id).await?;
    }
    Ok(StatusCode::OK)
}

pub async fn follow_contains(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let id = parse_id(&id, ItemKind::Playlist)?;
    // `ids` names users; only the caller's own answer is known to the caller.
    let users: Vec<String> = match q.get("ids") {
        Some(list) => list.split(',').map(str::to_owned).filter(|s| !s.is_empty()).collect(),
        None => a.user_id.clone().into_iter().collect(),
    };
    if users.len() > 5 {
        return Err(ApiError::bad_request("too many ids requested: at most 5"));
    }
    let out = s.catalog.playlist_followed_by(&a, &id, &users).await?;
    Ok(Json(json!(out)))
}

pub async fn images(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let id = parse_id(&id, ItemKind::Playlist)?;
    let playlist = s.catalog.playlist(&id, &a).await?;
    Ok(Json(s.wire_at(&a).images(playlist.image_id.as_deref())))
}

/// `PUT .../images`: a base64 JPEG body of at most 256 KB; 202.
pub async fn upload_image(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    LimitedBody(body): LimitedBody<COVER_BODY_LIMIT>,
) -> Result<StatusCode, ApiError> {
    a.user(&["ugc-image-upload"])?;
    a.user_any(&MODIFY)?;
    let id = parse_id(&id, ItemKind::Playlist)?;
    let text: Vec<u8> = body.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    let jpeg = STANDARD.decode(&text).map_err(|_| ApiError::bad_request("the body must be a base64-encoded JPEG"))?;
    s.catalog.set_playlist_cover(&id, &a, &jpeg).await?;
    Ok(StatusCode::ACCEPTED)
}

/// `GET /playlists/{id}/collaborators` (the catalog's own route, not
/// Spotify's): the user ids the owner lets edit a collaborative playlist.
pub async fn collaborators(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let id = parse_id(&id, ItemKind::Playlist)?;
    let ids = s.catalog.playlist_collaborators(&a, &id).await?;
    Ok(Json(json!({ "ids": ids })))
}

/// `PUT` and `DELETE /playlists/{id}/collaborators` with `{"ids": [...]}`
/// (or `?ids=`): the owner adds or removes collaborators.
pub async fn change_collaborators(
    State(s): State<AppState>,
    Auth(a): Auth,
    method: axum::http::Method,
    Path(id): Path<String>,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let id = parse_id(&id, ItemKind::Playlist)?;
    let body = json_body(&body)?;
    let ids: Vec<String> = match q.get("ids").filter(|v| !v.is_empty()) {
        Some(list) => list.split(',').map(str::to_owned).collect(),
        None => string_list(body.get("ids")),
    };
    s.catalog.change_collaborators(&a, &id, &ids, method != axum::http::Method::DELETE).await?;
    Ok(StatusCode::OK)
}
