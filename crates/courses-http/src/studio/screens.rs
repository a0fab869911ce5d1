//! Editing a course's screens and blocks from the course page: move a
//! screen up or down (the keyboard's way to reorder) or to the order a drag
//! made, duplicate, delete; add, edit and delete a block of every kind but
//! an imported SCO, with the live preview of an edit; the course's
//! settings; and the signed embed link builder.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use courses_core::CoursesError;
use serde_json::{Map, Value, json};

use super::{St, form_with_error_as};

/// `up`, `down`, `duplicate` or `delete` on one screen.
pub(super) async fn screen_action(
    State(s): St,
    Path((id, screen, action)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let back = format!("/courses/{id}#screen-{screen}");
    let done = match action.as_str() {
        "up" => s.courses.move_screen(access, &id, &screen, true).await.map(|_| "Screen moved up."),
        "down" => s.courses.move_screen(access, &id, &screen, false).await.map(|_| "Screen moved down."),
        "duplicate" => s.courses.duplicate_screen(access, &id, &screen).await.map(|_| "Screen duplicated."),
        "delete" => s.courses.delete_screen(access, &id, &screen).await.map(|()| "Screen deleted."),
        _ => Err(CoursesError::not_found("action")),
    };
    let to = if action == "delete" { format!("/courses/{id}") } else { back };
    match done {
        Ok(text) => s.redirect_with(&to, "success", text),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// The block a form describes, as the API's body (validated by the use case).
fn block_body(s: &crate::AppState, form: &page_kit::Form) -> Map<String, Value> {
    block_body_of(s, form.get("type"), form)
}

/// The block of kind `kind` the form describes. An image, video or audio
/// block with an upload chosen shows that upload, by its address on this
/// service, instead of the address typed.
fn block_body_of(s: &crate::AppState, kind: &str, form: &page_kit::Form) -> Map<String, Value> {
    let media = form.get("media").trim();
    let chosen = (matches!(kind, "image" | "video" | "audio") && !media.is_empty()).then(|| {
        format!(
            "{}/v1/embed/media/{}",
            s.courses.members_config().public_url.trim_end_matches('/'),
            page_kit::encode(media)
        )
    });
    courses_core::block_form::block_from_form(kind, |k| match (k, &chosen) {
        ("url", Some(url)) => url.as_str(),
        _ => form.get(k),
    })
}

/// The workspace's uploads a block of `kind` can show, as `{id, name, url}`.
async fn uploads_for(s: &crate::AppState, me: &courses_core::members::SignedIn, kind: &str) -> Vec<Value> {
    let wanted = match kind {
        "image" => courses_core::media::MediaKind::Image,
        "video" => courses_core::media::MediaKind::Video,
        "audio" => courses_core::media::MediaKind::Audio,
        _ => return Vec::new(),
    };
    let base = s.courses.members_config().public_url.trim_end_matches('/').to_owned();
    s.courses
        .media_list(&me.access)
        .await
        .unwrap_or_default()
        .into_iter()
        .filter(|m| m.kind == wanted)
        .map(|m| json!({ "id": m.id, "name": m.name, "url": format!("{base}{}", m.path()) }))
        .collect()
}

/// The form's fields named as the API names them, to place errors.
const RENAMES: [(&str, &str); 9] = courses_core::block_form::FORM_NAMES;

/// Adds a block at the end of a screen.
pub(super) async fn add_block(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let screen = p.form.get("screen").to_owned();
    match s.courses.add_block(access, &id, &screen, &block_body(&s, &p.form)).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}#screen-{screen}"), "success", "Block added."),
        Err(e @ CoursesError::Invalid { .. }) => {
            // The block's fields are named in the API's terms; the form's
            // one text box stands for each kind's main text. The form
            // comes back on the kind's own page.
            let form = form_with_error_as(p.form, &e, &RENAMES);
            new_block_page(&s, &p.ctx, &p.me, &id, &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

pub(super) async fn delete_block(
    State(s): St,
    Path((id, screen, block)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let result = match p.me.writer() {
        Ok(access) => s.courses.delete_block(access, &id, &screen, &block).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => s.redirect_with(&format!("/courses/{id}#screen-{screen}"), "success", "Block deleted."),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// The course's title, passing score, retry setting, theme and
/// certificate template.
pub(super) async fn update_course(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let mut body = Map::new();
    body.insert("title".into(), json!(p.form.get("course_title").trim()));
    let passing = p.form.get("passing_score").trim();
    let passing = if passing.is_empty() {
        Value::Null
    } else {
        passing.parse::<i64>().map_or_else(|_| json!(passing), |n| json!(n))
    };
    body.insert("passingScore".into(), passing);
    // A checkbox: absent when unticked.
    let retry = if p.form.values.contains_key("retry") { "allowed" } else { "never" };
    body.insert("retry".into(), json!(retry));
    // The theme field is on the form only where the plan has themes; an
    // empty choice is the default look.
    if let Some(theme) = p.form.values.get("theme") {
        let theme = theme.trim();
        body.insert("themeId".into(), if theme.is_empty() { Value::Null } else { json!(theme) });
    }
    if let Some(template) = p.form.values.get("certificate") {
        let template = template.trim();
        body.insert("certificateId".into(), if template.is_empty() { Value::Null } else { json!(template) });
    }
    match s.courses.update_course(access, &id, &body).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}"), "success", "Course saved."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(
                p.form,
                &e,
                &[
                    ("passingScore", "passing_score"),
                    ("title", "course_title"),
                    ("themeId", "theme"),
                    ("certificateId", "certificate"),
                ],
            );
            super::courses::course_page(&s, &p.ctx, &p.me, &id, &form, "settings", None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// Mints a signed embed link for one learner and shows it once.
pub(super) async fn embed_link(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let days = p.form.get("days").trim().parse::<i64>().unwrap_or(1);
    let mut body = Map::new();
    body.insert("externalId".into(), json!(p.form.get("learner").trim()));
    body.insert("expiresInSeconds".into(), json!(days.saturating_mul(86_400)));
    match s.courses.mint_embed_link(access, &id, &body).await {
        Ok(link) => {
            let url = link.url;
            let form = page_kit::Form::default();
            let mut response = super::courses::course_page(&s, &p.ctx, &p.me, &id, &form, "", Some(&url)).await;
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(p.form, &e, &[("externalId", "learner"), ("expiresInSeconds", "days")]);
            super::courses::course_page(&s, &p.ctx, &p.me, &id, &form, "embed", None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// The stored kind of a block (empty when it cannot be read: the update
/// then answers why).
async fn block_values_kind(
    s: &crate::AppState,
    me: &courses_core::members::SignedIn,
    ids: (&str, &str, &str),
) -> String {
    let (id, screen_id, block_id) = ids;
    s.courses
        .screen(&me.access, id, screen_id)
        .await
        .ok()
        .and_then(|(_, screen)| {
            screen.get("blocks").and_then(Value::as_array).and_then(|blocks| {
                blocks
                    .iter()
                    .find(|b| b.get("id").and_then(Value::as_str) == Some(block_id))
                    .and_then(|b| b.get("type").and_then(Value::as_str).map(str::to_owned))
            })
        })
        .unwrap_or_default()
}

async fn block_page(
    s: &crate::AppState,
    ctx: &super::Ctx,
    me: &courses_core::members::SignedIn,
    ids: (&str, &str, &str),
    form: Option<&page_kit::Form>,
) -> Response {
    let (id, screen_id, block_id) = ids;
    let found = s.courses.screen(&me.access, id, screen_id).await.and_then(|(_, screen)| {
        screen
            .get("blocks")
            .and_then(Value::as_array)
            .and_then(|blocks| blocks.iter().find(|b| b.get("id").and_then(Value::as_str) == Some(block_id)).cloned())
            .map(|block| (screen, block))
            .ok_or(CoursesError::not_found("block"))
    });
    let (screen, block) = match found {
        Ok(found) => found,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let stored = page_kit::Form { values: courses_core::block_form::form_from_block(&block), errors: Vec::new() };
    let form = form.unwrap_or(&stored);
    let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
    let uploads = uploads_for(s, me, kind).await;
    s.render(
        ctx,
        super::form_status(form),
        "block.html",
        "courses",
        json!({
            "course_id": id,
            "screen": { "id": screen_id, "title": screen.get("title").and_then(Value::as_str).unwrap_or_default() },
            "block": { "id": block_id, "type": kind, "label": kind_label(kind), "editable": courses_core::block_form::has_form(kind) },
            "form": form.view(),
            "uploads": uploads,
            "new": false,
        }),
    )
}

/// A person's name for a kind of block.
fn kind_label(kind: &str) -> String {
    courses_core::block_form::FORM_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or_else(|| kind.replace('_', " "), |(_, label)| (*label).to_owned())
}

/// The page that adds a block of the chosen kind to the chosen screen
/// (`form` holds `screen` and `type`, and the fields when re-shown with
/// errors).
async fn new_block_page(
    s: &crate::AppState,
    ctx: &super::Ctx,
    me: &courses_core::members::SignedIn,
    id: &str,
    form: &page_kit::Form,
) -> Response {
    let screen_id = form.get("screen");
    let kind = form.get("type");
    if !courses_core::block_form::has_form(kind) {
        return s.error_page(Some(ctx), CoursesError::not_found("kind of block"));
    }
    let screen = match s.courses.screen(&me.access, id, screen_id).await {
        Ok((_, screen)) => screen,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let uploads = uploads_for(s, me, kind).await;
    s.render(
        ctx,
        super::form_status(form),
        "block.html",
        "courses",
        json!({
            "course_id": id,
            "screen": { "id": screen_id, "title": screen.get("title").and_then(Value::as_str).unwrap_or_default() },
            "block": { "id": "", "type": kind, "label": kind_label(kind), "editable": true },
            "form": form.view(),
            "uploads": uploads,
            "new": true,
        }),
    )
}

/// `GET /courses/{id}/blocks/new?screen=&type=`: the chosen kind's form.
pub(super) async fn new_block(
    State(s): St,
    Path(id): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: axum::http::HeaderMap,
) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.as_deref().unwrap_or("")).unwrap_or_default();
    let mut values: std::collections::HashMap<String, String> = pairs.into_iter().collect();
    values.insert("answer".to_owned(), "true".to_owned());
    let form = page_kit::Form { values, errors: Vec::new() };
    new_block_page(&s, &ctx, &me, &id, &form).await
}

/// `POST /courses/{id}/draft`: the live preview of a block being edited
/// (`screen`, `block` when it exists, `type` and the kind's fields):
/// `{screenIndex, screen}` as the player would show it, or `{screen: null,
/// message}` naming the first problem. Nothing is saved.
pub(super) async fn draft(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let screen = p.form.get("screen");
    let block = Some(p.form.get("block")).filter(|b| !b.is_empty());
    let mut body = block_body(&s, &p.form);
    if block.is_some() {
        // An edit keeps its kind; the stored one is merged under it.
        body.remove("type");
    }
    match s.courses.draft_screen(&p.me.access, &id, screen, block, &body).await {
        Ok((index, screen)) => axum::Json(json!({ "screenIndex": index, "screen": screen })).into_response(),
        // A block half typed is the normal state of a live preview, not a
        // failed request: its problems are the answer (200), as the form
        // would show them on saving.
        Err(e @ CoursesError::Invalid { .. }) => {
            let api = crate::error::ApiError::from(e);
            axum::Json(json!({ "screen": null, "message": api.message() })).into_response()
        }
        Err(e) => crate::error::ApiError::from(e).into_response(),
    }
}

/// `POST /courses/{id}/screen-order`: `order`, every screen id separated by
/// commas (the order dragging made; the Up and Down buttons are the
/// keyboard's and script-free way).
pub(super) async fn screen_order(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let order: Vec<String> =
        p.form.get("order").split(',').map(str::trim).filter(|i| !i.is_empty()).map(str::to_owned).collect();
    match s.courses.reorder_screens(&p.me.access, &id, &order).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}"), "success", "Screens reordered."),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

pub(super) async fn edit_block(
    State(s): St,
    Path((id, screen, block)): Path<(String, String, String)>,
    headers: axum::http::HeaderMap,
) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => block_page(&s, &ctx, &me, (&id, &screen, &block), None).await,
        Err(response) => response,
    }
}

/// Saves a block's text, options and answer (its kind stays).
pub(super) async fn save_block(
    State(s): St,
    Path((id, screen, block)): Path<(String, String, String)>,
    request: Request,
) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let kind = block_values_kind(&s, &p.me, (&id, &screen, &block)).await;
    let mut body = block_body_of(&s, &kind, &p.form);
    body.remove("type");
    match s.courses.update_block(access, &id, &screen, &block, &body).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}#screen-{screen}"), "success", "Block saved."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(p.form, &e, &RENAMES);
            block_page(&s, &p.ctx, &p.me, (&id, &screen, &block), Some(&form)).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
