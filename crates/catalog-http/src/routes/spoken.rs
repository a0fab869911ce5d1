//! Podcasts and audiobooks: shows and their episodes, audiobooks and their
//! chapters, and the user's saved shows, episodes and audiobooks. One
//! handler serves both kinds; the route's first segment says which.

use axum::Json;
use axum::extract::{Path, State};
use catalog_core::ids::{ItemKind, parse_id};
use catalog_core::{Access, Episode, Show, Window};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, Query};

type ApiResult = Result<Json<Value>, ApiError>;

/// At most this many ids in one several-id lookup (Spotify's limit for
/// shows, episodes, audiobooks and chapters).
const MAX_IDS: usize = 50;

/// The kind a route's first segment names: `/v1/shows/...` is `Show`.
fn kind_of(path: &str) -> ItemKind {
    match path.trim_start_matches("/v1/").trim_start_matches("me/").split('/').next() {
        Some("audiobooks" | "audiobook") => ItemKind::Audiobook,
        Some("episodes") => ItemKind::Episode,
        Some("chapters") => ItemKind::Chapter,
        _ => ItemKind::Show,
    }
}

/// The paging object of a show's episodes (or an audiobook's chapters).
async fn items_page(s: &AppState, access: &Access, show: &Show, q: &Query, window: Window) -> Result<Value, ApiError> {
    let mut page = s.catalog.show_episodes(show.kind, &show.id, window).await?;
    resume(s, access, &mut page.items).await?;
    let w = s.wire_at(access);
    Ok(w.paging(q, page.items.iter().map(|e| w.episode_simple(e)).collect(), window, page.total))
}

/// The full object of a show or audiobook, with its first 50 items.
/// Fills `resume_point`s when the token may read playback positions.
async fn resume(
    s: &AppState,
    access: &Access,
    episodes: impl IntoIterator<Item = &mut Episode> + Send,
) -> Result<(), ApiError> {
    if let Some(user) = access.position_reader() {
        s.catalog.with_resume_points(user, episodes).await?;
    }
    Ok(())
}

async fn full_show(s: &AppState, access: &Access, show: &Show) -> Result<Value, ApiError> {
    let items = if show.kind == ItemKind::Audiobook { "chapters" } else { "episodes" };
    let q = Query { path: format!("/v1/{}s/{}/{items}", show.kind.as_str(), show.id), pairs: Vec::new() };
    let page = items_page(s, access, show, &q, Window::new(50, 0)).await?;
    Ok(s.wire_at(access).show(show, page))
}

/// `GET /shows/{id}`, `GET /audiobooks/{id}`.
pub async fn show(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let kind = kind_of(&q.path);
    let show = s.catalog.show(kind, &parse_id(&id, kind)?).await?;
    Ok(Json(full_show(&s, &a, &show).await?))
}

/// `GET /shows?ids=` (simplified shows), `GET /audiobooks?ids=` (full audiobooks).
pub async fn shows(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let kind = kind_of(&q.path);
    let ids = q.ids(kind, MAX_IDS)?;
    let mut items = Vec::with_capacity(ids.len());
    for show in s.catalog.shows(kind, &ids).await? {
        items.push(match show {
            None => Value::Null,
            Some(show) if kind == ItemKind::Audiobook => full_show(&s, &a, &show).await?,
            Some(show) => s.wire_at(&a).show_simple(&show),
        });
    }
    Ok(Json(json!({ format!("{}s", kind.as_str()): items })))
}

/// `GET /shows/{id}/episodes`, `GET /audiobooks/{id}/chapters`.
pub async fn show_items(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let kind = kind_of(&q.path);
    let window = q.window(20, 50)?;
    let show = s.catalog.show(kind, &parse_id(&id, kind)?).await?;
    Ok(Json(items_page(&s, &a, &show, &q, window).await?))
}

/// `GET /episodes/{id}`, `GET /chapters/{id}`.
pub async fn episode(State(s): State<AppState>, Auth(a): Auth, Path(id): Path<String>, q: Query) -> ApiResult {
    let kind = kind_of(&q.path);
    let mut episode = s.catalog.episode(kind, &parse_id(&id, kind)?).await?;
    resume(&s, &a, [&mut episode]).await?;
    Ok(Json(s.wire_at(&a).episode(&episode)))
}

/// `GET /episodes?ids=`, `GET /chapters?ids=`.
pub async fn episodes(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let kind = kind_of(&q.path);
    let ids = q.ids(kind, MAX_IDS)?;
    let w = s.wire_at(&a);
    let mut found = s.catalog.episodes(kind, &ids).await?;
    resume(&s, &a, found.iter_mut().flatten()).await?;
    let items: Vec<Value> = found.iter().map(|e| e.as_ref().map_or(Value::Null, |e| w.episode(e))).collect();
    Ok(Json(json!({ format!("{}s", kind.as_str()): items })))
}

/// `GET /me/shows` (saved simplified shows), `/me/audiobooks` (simplified
/// audiobooks, unwrapped), `/me/episodes` (saved full episodes).
pub async fn saved(State(s): State<AppState>, Auth(a): Auth, q: Query) -> ApiResult {
    let user = a.user(&["user-library-read"])?;
    let kind = kind_of(&q.path);
    let window = q.window(20, 50)?;
    let w = s.wire_at(&a);
    let (items, total) = match kind {
        ItemKind::Episode => {
            let mut page = s.catalog.saved_episodes(user, window).await?;
            resume(&s, &a, page.items.iter_mut().map(|i| &mut i.item)).await?;
            (page.items.iter().map(|i| w.saved(i.added_at, "episode", w.episode(&i.item))).collect(), page.total)
        }
        _ => {
            let page = s.catalog.saved_shows(user, kind, window).await?;
            let mut items = Vec::with_capacity(page.items.len());
            for i in &page.items {
                items.push(if kind == ItemKind::Audiobook {
                    // Spotify answers the audiobooks themselves, simplified and
                    // without `added_at`, as its official description says
                    // (docs/decisions.md, "Saved audiobooks").
                    w.show_simple(&i.item)
                } else {
                    w.saved(i.added_at, kind.as_str(), w.show_simple(&i.item))
                });
            }
            (items, page.total)
        }
    };
    Ok(Json(w.paging(&q, items, window, total)))
}
