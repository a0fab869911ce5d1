//! Catalog reads: tracks, albums, artists, search, browse, audio features
//! and analysis, recommendations, genre seeds, markets and images. An app
//! token (client credentials) suffices for all of them.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use catalog_core::Access;
use catalog_core::ids::{ItemKind, parse_id};
use catalog_core::library::{RecommendationRequest, TUNABLE_FIELDS, Tunable};
use catalog_core::search::SearchQuery;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, Query};

type ApiResult = Result<Json<Value>, ApiError>;

pub async fn track(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let track = s.catalog.track(&parse_id(&id, ItemKind::Track)?).await?;
    Ok(Json(s.wire_at(&a).track(&track)))
}

pub async fn tracks(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let ids = q.ids(ItemKind::Track, 50)?;
    let w = s.wire_at(&a);
    let items: Vec<Value> =
        s.catalog.tracks(&ids).await?.iter().map(|t| t.as_ref().map_or(Value::Null, |t| w.track(t))).collect();
    Ok(Json(json!({ "tracks": items })))
}

async fn album_tracks_page(s: &AppState, a: &Access, id: &str, q: &Query) -> Result<Value, ApiError> {
    let window = q.window(50, 50)?;
    let page = s.catalog.album_tracks(id, window).await?;
    let w = s.wire_at(a);
    Ok(w.paging(q, page.items.iter().map(|t| w.track_simple(t)).collect(), window, page.total))
}

pub async fn album(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let id = parse_id(&id, ItemKind::Album)?;
    let album = s.catalog.album(&id).await?;
    let tracks_query = Query { path: format!("/v1/albums/{id}/tracks"), pairs: Vec::new() };
    let tracks = album_tracks_page(&s, &a, &id, &tracks_query).await?;
    Ok(Json(s.wire_at(&a).album(&album, tracks)))
}

pub async fn albums(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let ids = q.ids(ItemKind::Album, 20)?;
    let mut items = Vec::with_capacity(ids.len());
    for album in s.catalog.albums(&ids).await? {
        items.push(match album {
            Some(album) => {
                let tq = Query { path: format!("/v1/albums/{}/tracks", album.id), pairs: Vec::new() };
                let tracks = album_tracks_page(&s, &a, &album.id, &tq).await?;
                s.wire_at(&a).album(&album, tracks)
            }
            None => Value::Null,
        });
    }
    Ok(Json(json!({ "albums": items })))
}

pub async fn album_tracks(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let id = parse_id(&id, ItemKind::Album)?;
    Ok(Json(album_tracks_page(&s, &a, &id, &q).await?))
}

pub async fn artist(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let artist = s.catalog.artist(&parse_id(&id, ItemKind::Artist)?).await?;
    Ok(Json(s.wire_at(&a).artist(&artist)))
}

pub async fn artists(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let ids = q.ids(ItemKind::Artist, 50)?;
    let w = s.wire_at(&a);
    let items: Vec<Value> =
        s.catalog.artists(&ids).await?.iter().map(|a| a.as_ref().map_or(Value::Null, |a| w.artist(a))).collect();
    Ok(Json(json!({ "artists": items })))
}

pub async fn artist_albums(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let id = parse_id(&id, ItemKind::Artist)?;
    // The current spec caps this at 10; older clients ask for up to 50.
    let window = q.window(20, 50)?;
    let page = s.catalog.artist_albums(&id, window).await?;
    let w = s.wire_at(&a);
    Ok(Json(w.paging(&q, page.items.iter().map(|a| w.album_of_artist(a, &id)).collect(), window, page.total)))
}

pub async fn artist_top_tracks(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let tracks = s.catalog.artist_top_tracks(&parse_id(&id, ItemKind::Artist)?).await?;
    let w = s.wire_at(&a);
    Ok(Json(json!({ "tracks": tracks.iter().map(|t| w.track(t)).collect::<Vec<_>>() })))
}

pub async fn related_artists(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let artists = s.catalog.related_artists(&parse_id(&id, ItemKind::Artist)?, a.user_id.as_deref()).await?;
    let w = s.wire_at(&a);
    Ok(Json(json!({ "artists": artists.iter().map(|a| w.artist(a)).collect::<Vec<_>>() })))
}

/// `GET /search`: one paging object per requested type, the types searched
/// concurrently (each is its own read of the store).
pub async fn search(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let text = q.required("q")?;
    let types = q.required("type")?;
    // Spotify's current limit is 10 (default 5); older clients ask for 50.
    let window = q.window(5, 50)?;
    let query = SearchQuery::parse(text);
    let kinds = types
        .split(',')
        .map(str::trim)
        .map(|kind| match kind {
            "track" | "album" | "artist" | "show" | "audiobook" | "episode" | "playlist" => Ok(kind),
            other => Err(ApiError::bad_request(format!("Bad search type field {other}"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (s, q, query, a) = (&s, &q, &query, &a);
    let pages = kinds.into_iter().map(|kind| async move {
        let w = s.wire_at(a);
        let value = match kind {
            "track" => {
                let p = s.catalog.search_tracks(query, window).await?;
                w.paging(q, p.items.iter().map(|t| w.track(t)).collect(), window, p.total)
            }
            "album" => {
                let p = s.catalog.search_albums(query, window).await?;
                w.paging(q, p.items.iter().map(|a| w.album_simple(a)).collect(), window, p.total)
            }
            "artist" => {
                let p = s.catalog.search_artists(query, window).await?;
                w.paging(q, p.items.iter().map(|a| w.artist(a)).collect(), window, p.total)
            }
            "show" | "audiobook" => {
                let k = if kind == "show" { ItemKind::Show } else { ItemKind::Audiobook };
                let p = s.catalog.search_shows(k, query, window).await?;
                w.paging(q, p.items.iter().map(|x| w.show_simple(x)).collect(), window, p.total)
            }
            "episode" => {
                let p = s.catalog.search_episodes(query, window).await?;
                w.paging(q, p.items.iter().map(|e| w.episode_simple(e)).collect(), window, p.total)
            }
            _ => {
                let p = s.catalog.search_playlists(query, window).await?;
                w.paging(q, p.items.iter().map(|l| w.playlist_simple(l)).collect(), window, p.total)
            }
        };
        Ok::<_, ApiError>((format!("{kind}s"), value))
    });
    let out: serde_json::Map<String, Value> = futures_util::future::try_join_all(pages).await?.into_iter().collect();
    Ok(Json(Value::Object(out)))
}

pub async fn new_releases(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let window = q.window(20, 50)?;
    let page = s.catalog.new_releases(window).await?;
    let w = s.wire_at(&a);
    Ok(Json(
        json!({ "albums": w.paging(&q, page.items.iter().map(|a| w.album_simple(a)).collect(), window, page.total) }),
    ))
}

pub async fn featured_playlists(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let window = q.window(20, 50)?;
    let page = s.catalog.public_playlists(window).await?;
    let w = s.wire_at(&a);
    Ok(Json(json!({
        "message": "Popular playlists",
        "playlists": w.paging(&q, page.items.iter().map(|p| w.playlist_simple(p)).collect(), window, page.total),
    })))
}

/// A genre's display name: `hip-hop` is "Hip Hop".
fn category_name(genre: &str) -> String {
    genre
        .split(['-', ' '])
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn category(s: &AppState, genre: &str) -> Value {
    json!({
        "href": format!("{}/v1/browse/categories/{genre}", s.public_url),
        "icons": [],
        "id": genre,
        "name": category_name(genre),
    })
}

/// Browse categories are the library's genres.
pub async fn categories(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let window = q.window(20, 50)?;
    let genres = s.catalog.genre_seeds().await?;
    let total = genres.len() as u64;
    let items: Vec<Value> = genres
        .iter()
        .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
        .take(window.limit as usize)
        .map(|g| category(&s, g))
        .collect();
    Ok(Json(json!({ "categories": s.wire_at(&a).paging(&q, items, window, total) })))
}

pub async fn category_one(State(s): State<AppState>, Auth(_): Auth, Path(id): Path<String>) -> ApiResult {
    if s.catalog.genre_seeds().await?.contains(&id) {
        Ok(Json(category(&s, &id)))
    } else {
        Err(catalog_core::CatalogError::NotFound("category").into())
    }
}

/// A category's own playlists: the public playlists holding its genre's tracks.
pub async fn category_playlists(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    q: Query,
) -> ApiResult {
    if !s.catalog.genre_seeds().await?.contains(&id) {
        return Err(catalog_core::CatalogError::NotFound("category").into());
    }
    let window = q.window(20, 50)?;
    let page = s.catalog.category_playlists(&id, window).await?;
    let w = s.wire_at(&a);
    Ok(Json(json!({
        "message": category_name(&id),
        "playlists": w.paging(&q, page.items.iter().map(|p| w.playlist_simple(p)).collect(), window, page.total),
    })))
}

pub async fn genre_seeds(State(s): State<AppState>, Auth(_): Auth) -> ApiResult {
    Ok(Json(json!({ "genres": s.catalog.genre_seeds().await? })))
}

/// The configured markets (`SVC_CATALOG_MARKETS`).
pub async fn markets(State(s): State<AppState>, Auth(_): Auth) -> Json<Value> {
    Json(json!({ "markets": s.catalog.markets().codes() }))
}

pub async fn audio_features_one(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let id = parse_id(&id, ItemKind::Track)?;
    let found = s.catalog.audio_features(std::slice::from_ref(&id)).await?.into_iter().flatten().next();
    let (id, features) = found.ok_or(catalog_core::CatalogError::NotFound("audio features"))?;
    Ok(Json(s.wire_at(&a).features(&id, &features)))
}

pub async fn audio_features(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let ids = q.ids(ItemKind::Track, 100)?;
    let w = s.wire_at(&a);
    let items: Vec<Value> = s
        .catalog
        .audio_features(&ids)
        .await?
        .iter()
        .map(|f| f.as_ref().map_or(Value::Null, |(id, f)| w.features(id, f)))
        .collect();
    Ok(Json(json!({ "audio_features": items })))
}

pub async fn audio_analysis(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> ApiResult {
    let analysis = s.catalog.audio_analysis(&parse_id(&id, ItemKind::Track)?).await?;
    Ok(Json(s.wire_at(&a).analysis(&analysis, s.catalog.clock().now())))
}

fn seed_list(q: &Query, name: &str, kind: Option<ItemKind>) -> Result<Vec<String>, ApiError> {
    let Some(raw) = q.get(name).filter(|v| !v.is_empty()) else { return Ok(Vec::new()) };
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|v| match kind {
            Some(k) => Ok(parse_id(v, k)?),
            None => Ok(v.to_owned()),
        })
        .collect()
}

pub async fn recommendations(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let limit = match q.integer("limit")? {
        None => 20,
        Some(l) if (1..=100).contains(&l) => usize::try_from(l).unwrap_or(20),
        Some(_) => return Err(ApiError::bad_request("Invalid limit: must be between 1 and 100")),
    };
    let mut tunables: HashMap<String, Tunable> = HashMap::new();
    for field in TUNABLE_FIELDS {
        for (prefix, slot) in [("min_", 0), ("max_", 1), ("target_", 2)] {
            let name = format!("{prefix}{field}");
            if let Some(raw) = q.get(&name) {
                let v: f64 = raw.trim().parse().map_err(|_| ApiError::bad_request(format!("Invalid {name}")))?;
                let t = tunables.entry((*field).to_owned()).or_default();
                match slot {
                    0 => t.min = Some(v),
                    1 => t.max = Some(v),
                    _ => t.target = Some(v),
                }
            }
        }
    }
    let request = RecommendationRequest {
        seed_artists: seed_list(&q, "seed_artists", Some(ItemKind::Artist))?,
        seed_tracks: seed_list(&q, "seed_tracks", Some(ItemKind::Track))?,
        seed_genres: seed_list(&q, "seed_genres", None)?,
        tunables,
        limit,
    };
    let (tracks, seeds) = s.catalog.recommendations(&request).await?;
    let w = s.wire_at(&a);
    let seeds: Vec<Value> = seeds
        .iter()
        .map(|seed| {
            let href = match seed.kind {
                "ARTIST" => Value::String(format!("{}/v1/artists/{}", s.public_url, seed.id)),
                "TRACK" => Value::String(format!("{}/v1/tracks/{}", s.public_url, seed.id)),
                _ => Value::Null,
            };
            json!({
                "afterFilteringSize": seed.after_filtering_size,
                "afterRelinkingSize": seed.after_filtering_size,
                "href": href,
                "id": seed.id,
                "initialPoolSize": seed.initial_pool_size,
                "type": seed.kind,
            })
        })
        .collect();
    Ok(Json(json!({ "seeds": seeds, "tracks": tracks.iter().map(|t| w.track(t)).collect::<Vec<_>>() })))
}

/// Album artwork and playlist covers (no token: `<img>` tags load these),
/// sandboxed and never sniffed.
pub async fn image(State(s): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (mime, data) = s
        .catalog
        .store()
        .image_data(&id)
        .await
        .map_err(catalog_core::CatalogError::from)?
        .ok_or(catalog_core::CatalogError::NotFound("image"))?;
    let mime = HeaderValue::from_str(&mime).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let mut response = (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable")),
        ],
        data,
    )
        .into_response();
    // Artwork and covers are bytes a user chose: never a document of this origin.
    platform::http::tenant_content_headers(response.headers_mut());
    Ok(response)
}

pub async fn empty_page(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let window = q.window(20, 50)?;
    Ok(Json(s.wire_at(&a).paging(&q, Vec::new(), window, 0)))
}
