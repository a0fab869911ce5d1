//! The current user: profile, saved library, follows, top items, recently
//! played.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use catalog_core::ids::{ItemKind, ItemUri, parse_id_list};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, LimitedBody, Query, json_body};

type ApiResult = Result<Json<Value>, ApiError>;

const READ: &str = "user-library-read";
const MODIFY: &str = "user-library-modify";

pub async fn me(State(s): State<AppState>, Auth(a): Auth) -> ApiResult {
    let user = s.catalog.user(a.user(&[])?).await?;
    Ok(Json(s.wire_at(&a).user_private(&user)))
}

pub async fn user(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    Ok(Json(s.wire_at(&a).user_public(&s.catalog.user(&id).await?)))
}

/// Ids from `?ids=`, a JSON body `{"ids": [...]}`, or a bare JSON array
/// `[...]` (spotipy's `current_user_saved_*_add` sends that).
fn ids_from(
    q: &Query,
    body: &[u8],
    kind: ItemKind,
    max_query: usize,
    max_body: usize,
) -> Result<Vec<String>, ApiError> {
    if let Some(raw) = q.get("ids").filter(|v| !v.is_empty()) {
        return Ok(parse_id_list(raw, kind, max_query)?);
    }
    let body = json_body(body)?;
    let array = if body.is_array() { Some(&body) } else { body.get("ids") };
    let array = array.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if array.iter().any(|v| !v.is_string()) {
        return Err(ApiError::bad_request("ids must be strings"));
    }
    let list: Vec<String> = array.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    Ok(parse_id_list(&list.join(","), kind, max_body)?)
}

fn kind_of(path: &str) -> (ItemKind, usize, usize) {
    match path.trim_start_matches("/v1/me/").split('/').next() {
        Some("albums") => (ItemKind::Album, 20, 50),
        Some("shows") => (ItemKind::Show, 50, 50),
        Some("episodes") => (ItemKind::Episode, 50, 50),
        Some("audiobooks") => (ItemKind::Audiobook, 50, 50),
        _ => (ItemKind::Track, 50, 50),
    }
}

pub async fn save(
    State(s): State<AppState>,
    Auth(a): Auth,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let user = a.user(&[MODIFY])?;
    let (kind, mq, mb) = kind_of(&q.path);
    let ids = ids_from(&q, &body, kind, mq, mb)?;
    s.catalog.save(user, kind, &ids).await?;
    Ok(StatusCode::OK)
}

pub async fn unsave(
    State(s): State<AppState>,
    Auth(a): Auth,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let user = a.user(&[MODIFY])?;
    let (kind, mq, mb) = kind_of(&q.path);
    let ids = ids_from(&q, &body, kind, mq, mb)?;
    s.catalog.unsave(user, kind, &ids).await?;
    Ok(StatusCode::OK)
}

pub async fn contains(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&[READ])?;
    let (kind, mq, _) = kind_of(&q.path);
    let ids = q.ids(kind, mq)?;
    Ok(Json(json!(s.catalog.contains(user, kind, &ids).await?)))
}

pub async fn saved_tracks(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&[READ])?;
    let window = q.window(20, 50)?;
    let page = s.catalog.saved_tracks(user, window).await?;
    let w = s.wire_at(&a);
    let items = page.items.iter().map(|i| w.saved(i.added_at, "track", w.track(&i.item))).collect();
    Ok(Json(w.paging(&q, items, window, page.total)))
}

pub async fn saved_albums(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&[READ])?;
    let window = q.window(20, 50)?;
    let page = s.catalog.saved_albums(user, window).await?;
    let w = s.wire_at(&a);
    let mut items = Vec::with_capacity(page.items.len());
    for i in &page.items {
        let tq = Query { path: format!("/v1/albums/{}/tracks", i.item.id), pairs: Vec::new() };
        let tracks = s.catalog.album_tracks(&i.item.id, catalog_core::Window::new(50, 0)).await?;
        let tracks = w.paging(
            &tq,
            tracks.items.iter().map(|t| w.track_simple(t)).collect(),
            catalog_core::Window::new(50, 0),
            tracks.total,
        );
        items.push(w.saved(i.added_at, "album", w.album(&i.item, tracks)));
    }
    Ok(Json(w.paging(&q, items, window, page.total)))
}

/// Parses `uris` (query or body), at most 40.
fn uris_from(q: &Query, body: &[u8]) -> Result<Vec<ItemUri>, ApiError> {
    let raw: Vec<String> = match q.get("uris").filter(|v| !v.is_empty()) {
        Some(list) => list.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect(),
        None => json_body(body)?
            .get("uris")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
    };
    if raw.is_empty() {
        return Err(ApiError::bad_request("Missing required parameter uris"));
    }
    if raw.len() > 40 {
        return Err(ApiError::bad_request("too many uris requested: at most 40"));
    }
    Ok(raw.iter().map(|u| ItemUri::parse(u)).collect::<Result<_, _>>()?)
}

fn library_scope(kind: ItemKind, modify: bool) -> &'static str {
    match (kind, modify) {
        (ItemKind::Artist | ItemKind::User, true) => "user-follow-modify",
        (ItemKind::Artist | ItemKind::User, false) => "user-follow-read",
        (ItemKind::Playlist, true) => "playlist-modify-private",
        (ItemKind::Playlist, false) => "playlist-read-private",
        (_, true) => MODIFY,
        (_, false) => READ,
    }
}

/// `PUT`/`DELETE /me/library?uris=`: saves, follows and playlist follows in one route.
pub async fn library_change(
    State(s): State<AppState>,
    Auth(a): Auth,
    method: axum::http::Method,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let uris = uris_from(&q, &body)?;
    let modify_scopes: Vec<&str> = uris.iter().map(|u| library_scope(u.kind, true)).collect();
    let user = a.user(&modify_scopes)?;
    for uri in &uris {
        let ids = std::slice::from_ref(&uri.id);
        if method == axum::http::Method::DELETE {
            s.catalog.unsave(user, uri.kind, ids).await?;
        } else {
            s.catalog.save(user, uri.kind, ids).await?;
        }
    }
    Ok(StatusCode::OK)
}

pub async fn library_contains(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let uris = uris_from(&q, &[])?;
    let read_scopes: Vec<&str> = uris.iter().map(|u| library_scope(u.kind, false)).collect();
    let user = a.user(&read_scopes)?;
    let mut out = Vec::with_capacity(uris.len());
    for uri in &uris {
        out.push(
            s.catalog.contains(user, uri.kind, std::slice::from_ref(&uri.id)).await?.first().copied().unwrap_or(false),
        );
    }
    Ok(Json(json!(out)))
}

fn follow_kind(q: &Query) -> Result<ItemKind, ApiError> {
    match q.get("type") {
        Some("artist") => Ok(ItemKind::Artist),
        Some("user") => Ok(ItemKind::User),
        _ => Err(ApiError::bad_request("type must be artist or user")),
    }
}

pub async fn follow(
    State(s): State<AppState>,
    Auth(a): Auth,
    method: axum::http::Method,
    q: Query,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let user = a.user(&["user-follow-modify"])?;
    let kind = follow_kind(&q)?;
    let ids = ids_from(&q, &body, kind, 50, 50)?;
    if method == axum::http::Method::DELETE {
        s.catalog.unsave(user, kind, &ids).await?;
    } else {
        s.catalog.save(user, kind, &ids).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

pub async fn following_contains(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&["user-follow-read"])?;
    let kind = follow_kind(&q)?;
    let ids = q.ids(kind, 50)?;
    Ok(Json(json!(s.catalog.contains(user, kind, &ids).await?)))
}

/// `GET /me/following?type=artist`: cursor-paged by artist id.
pub async fn following(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&["user-follow-read"])?;
    if q.get("type") != Some("artist") {
        return Err(ApiError::bad_request("type must be artist"));
    }
    let limit = q.window(20, 50)?.limit;
    let after = q.get("after").filter(|v| !v.is_empty());
    let (artists, total) = s.catalog.followed_artists(user, after, limit).await?;
    let w = s.wire_at(&a);
    let last = artists.last().map(|a| a.id.clone());
    let next = last
        .as_ref()
        .filter(|_| artists.len() == limit as usize)
        .map(|id| format!("{}/v1/me/following?type=artist&after={id}&limit={limit}", s.public_url));
    Ok(Json(json!({ "artists": {
        "href": format!("{}/v1/me/following?type=artist&limit={limit}", s.public_url),
        "items": artists.iter().map(|a| w.artist(a)).collect::<Vec<_>>(),
        "limit": limit,
        "next": next,
        "cursors": { "after": if next.is_some() { last } else { None }, "before": null },
        "total": total,
    }})))
}

pub async fn top(State(s): State<AppState>, Auth(a): Auth, Path(kind): Path<String>, q: Query) -> ApiResult {
    let user = a.user(&["user-top-read"])?;
    let range = q.get("time_range").unwrap_or("medium_term");
    let window = q.window(20, 50)?;
    let w = s.wire_at(&a);
    let value = match kind.as_str() {
        "tracks" => {
            let page = s.catalog.top_tracks(user, range, window).await?;
            w.paging(&q, page.items.iter().map(|t| w.track(t)).collect(), window, page.total)
        }
        "artists" => {
            let page = s.catalog.top_artists(user, range, window).await?;
            w.paging(&q, page.items.iter().map(|a| w.artist(a)).collect(), window, page.total)
        }
        _ => return Err(catalog_core::CatalogError::NotFound("route").into()),
    };
    Ok(Json(value))
}

/// `GET /me/player/recently-played`: cursors are unix milliseconds; `total`
/// counts every play the cursor selects; `next` pages back in time (as
/// Spotify's does) and is null once no older play exists.
pub async fn recently_played(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&["user-read-recently-played"])?;
    let limit = q.window(20, 50)?.limit;
    let history = s.catalog.recently_played(user, q.integer("after")?, q.integer("before")?, limit).await?;
    let plays = &history.plays;
    let w = s.wire_at(&a);
    let items: Vec<Value> = plays
        .iter()
        .map(|p| {
            let context = w.context(p.context_uri.as_deref());
            json!({ "track": w.track(&p.track), "played_at": crate::wire::iso(p.played_at), "context": context })
        })
        .collect();
    let oldest = plays.last().map(|p| p.played_at.as_millis().to_string());
    let newest = plays.first().map(|p| p.played_at.as_millis().to_string());
    let next = oldest
        .as_ref()
        .filter(|_| history.older)
        .map(|before| format!("{}/v1/me/player/recently-played?before={before}&limit={limit}", s.public_url));
    let cursors = match (&newest, &oldest) {
        (Some(after), Some(before)) => json!({ "after": after, "before": before }),
        _ => Value::Null,
    };
    Ok(Json(json!({
        "href": format!("{}/v1/me/player/recently-played?limit={limit}", s.public_url),
        "items": items,
        "limit": limit,
        "next": next,
        "cursors": cursors,
        "total": history.total,
    })))
}
