//! Editing a course's screens and blocks from the course page: move a
//! screen up or down (the keyboard's way to reorder), duplicate, delete;
//! add a block (text, heading, a multiple-choice or true/false question),
//! delete a block; the course's title and passing score; and the signed
//! embed link builder.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
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
fn block_body(form: &page_kit::Form) -> Map<String, Value> {
    block_body_of(form.get("type"), form)
}

/// The block of kind `kind` the form describes.
fn block_body_of(kind: &str, form: &page_kit::Form) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("type".into(), json!(kind));
    match kind {
        "multiple_choice" => {
            let options: Vec<&str> = form.get("options").lines().map(str::trim).filter(|o| !o.is_empty()).collect();
            body.insert("question".into(), json!(form.get("block_text").trim()));
            body.insert("options".into(), json!(options));
            // People count from 1; the API from 0.
            let correct = form.get("correct").trim().parse::<u64>().ok().and_then(|n| n.checked_sub(1));
            body.insert("correctIndex".into(), correct.map_or(Value::Null, |n| json!(n)));
        }
        "true_false" => {
            body.insert("statement".into(), json!(form.get("block_text").trim()));
            body.insert("answer".into(), json!(form.get("answer") == "true"));
        }
        _ => {
            body.insert("text".into(), json!(form.get("block_text").trim()));
        }
    }
    body
}

/// Adds a block at the end of a screen.
pub(super) async fn add_block(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let screen = p.form.get("screen").to_owned();
    match s.courses.add_block(access, &id, &screen, &block_body(&p.form)).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}#screen-{screen}"), "success", "Block added."),
        Err(e @ CoursesError::Invalid { .. }) => {
            // The block's fields are named in the API's terms; the form's
            // one text box stands for each kind's main text.
            let renames = [
                ("question", "block_text"),
                ("statement", "block_text"),
                ("text", "block_text"),
                ("correctIndex", "correct"),
            ];
            let form = form_with_error_as(p.form, &e, &renames);
            super::courses::course_page(&s, &p.ctx, &p.me, &id, &form, "block", None).await
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

/// The course's title and passing score.
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
    // The theme field is on the form only where the plan has themes; an
    // empty choice is the default look.
    if let Some(theme) = p.form.values.get("theme") {
        let theme = theme.trim();
        body.insert("themeId".into(), if theme.is_empty() { Value::Null } else { json!(theme) });
    }
    match s.courses.update_course(access, &id, &body).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}"), "success", "Course saved."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(
                p.form,
                &e,
                &[("passingScore", "passing_score"), ("title", "course_title"), ("themeId", "theme")],
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

/// The form values of a stored block, for its edit page.
fn block_values(block: &Value) -> std::collections::HashMap<String, String> {
    let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut values = std::collections::HashMap::new();
    let kind = text("type");
    let main = match kind.as_str() {
        "multiple_choice" => text("question"),
        "true_false" => text("statement"),
        _ => text("text"),
    };
    values.insert("block_text".to_owned(), main);
    let options: Vec<&str> = block
        .get("options")
        .and_then(Value::as_array)
        .map(|o| o.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    values.insert("options".to_owned(), options.join("\n"));
    if let Some(i) = block.get("correctIndex").and_then(Value::as_u64) {
        values.insert("correct".to_owned(), (i + 1).to_string());
    }
    values.insert("answer".to_owned(), block.get("answer").and_then(Value::as_bool).unwrap_or(true).to_string());
    values.insert("type".to_owned(), kind);
    values
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

/// The kinds of block the studio's form edits; others are edited over the API.
const EDITABLE: [&str; 4] = ["text", "heading", "multiple_choice", "true_false"];

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
    let stored = page_kit::Form { values: block_values(&block), errors: Vec::new() };
    let form = form.unwrap_or(&stored);
    let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
    s.render(
        ctx,
        super::form_status(form),
        "block.html",
        "courses",
        json!({
            "course_id": id,
            "screen": { "id": screen_id, "title": screen.get("title").and_then(Value::as_str).unwrap_or_default() },
            "block": { "id": block_id, "type": kind, "label": kind.replace('_', " "), "editable": EDITABLE.contains(&kind) },
            "form": form.view(),
        }),
    )
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
    let mut body = block_body_of(&kind, &p.form);
    body.remove("type");
    match s.courses.update_block(access, &id, &screen, &block, &body).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}#screen-{screen}"), "success", "Block saved."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let renames = [
                ("question", "block_text"),
                ("statement", "block_text"),
                ("text", "block_text"),
                ("correctIndex", "correct"),
            ];
            let form = form_with_error_as(p.form, &e, &renames);
            block_page(&s, &p.ctx, &p.me, (&id, &screen, &block), Some(&form)).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
