//! The course list with search, a new course, the course page (screens,
//! publish and unpublish, the learner preview, SCORM export on every plan).

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courses_core::CourseStatus;
use courses_core::scorm::ScormVersion;
use page_kit::Form;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_with_error, page_or_error, when_millis};
use crate::AppState;

/// Courses per page of the list.
const PER_PAGE: u32 = 25;

#[derive(Deserialize, Default)]
pub(super) struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    offset: u64,
}

/// `/`: the signed-in member's courses; signed out, what the service is.
pub(super) async fn home(State(s): St, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let ctx = match s.studio_ctx(&headers).await {
        Ok(ctx) => ctx,
        Err(e) => return s.error_page(None, e),
    };
    let Some(me) = ctx.me.clone() else {
        return s.render(&ctx, StatusCode::OK, "welcome.html", "", json!({}));
    };
    // An unreadable query is the first page of everything, never an error.
    let query: ListQuery = serde_urlencoded::from_str(query.as_deref().unwrap_or_default()).unwrap_or_default();
    list_page(&s, &ctx, &me, &query, &Form::default()).await
}

async fn list_page(
    s: &AppState,
    ctx: &Ctx,
    me: &courses_core::members::SignedIn,
    query: &ListQuery,
    form: &Form,
) -> Response {
    let q = query.q.trim();
    let result = s.courses.studio_courses(me, q, PER_PAGE, query.offset).await.map(|(lines, total)| {
        let courses: Vec<Value> = lines
            .iter()
            .map(|c| json!({ "id": c.id, "title": c.title, "status": c.status, "updated": when_millis(c.updated_at) }))
            .collect();
        s.render(
            ctx,
            super::form_status(form),
            "courses.html",
            "courses",
            json!({
                "courses": courses,
                "query": q,
                "page": page_kit::pager(total, query.offset, PER_PAGE),
                "pager_base": format!("/?q={}&", page_kit::encode(q)),
                "form": form.view(),
            }),
        )
    });
    page_or_error(s, ctx, result)
}

/// A new draft course with its title; then its page.
pub(super) async fn create(State(s): St, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let mut body = Map::new();
    body.insert("title".into(), json!(p.form.get("title").trim()));
    match s.courses.create_course(access, &body).await {
        Ok(course) => {
            s.redirect_with(&format!("/courses/{}", course.id), "success", "Course created: add its first screen.")
        }
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            let form = form_with_error(p.form, &e);
            list_page(&s, &p.ctx, &p.me, &ListQuery::default(), &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// A block as one line of the course page.
fn block_summary(block: &Value) -> Value {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("block");
    let text = ["text", "question", "statement", "title", "caption", "label", "alt", "transcript"]
        .iter()
        .find_map(|k| block.get(*k).and_then(Value::as_str))
        .unwrap_or_default();
    let short: String = text.chars().take(90).collect();
    json!({
        "id": block.get("id").and_then(Value::as_str).unwrap_or_default(),
        "type": kind.replace('_', " "),
        "text": short,
        "scored": courses_core::content::is_scored_type(kind),
    })
}

fn course_view(course: &courses_core::Course) -> Value {
    let count = course.screens.len();
    let screens: Vec<Value> = course
        .screens
        .iter()
        .enumerate()
        .map(|(i, screen)| {
            let blocks: Vec<Value> = screen
                .get("blocks")
                .and_then(Value::as_array)
                .map(|b| b.iter().map(block_summary).collect())
                .unwrap_or_default();
            json!({
                "number": i + 1,
                "first": i == 0,
                "last": i + 1 == count,
                "id": screen.get("id").and_then(Value::as_str).unwrap_or_default(),
                "title": screen.get("title").and_then(Value::as_str).unwrap_or("Untitled screen"),
                "blocks": blocks,
            })
        })
        .collect();
    json!({
        "id": course.id,
        "title": course.title,
        "status": course.status.as_str(),
        "published": course.status == CourseStatus::Published,
        "passing_score": course.passing_score,
        "retry": course.allows_retry(),
        "screens": screens,
        "updated": page_kit::when(course.updated_at),
    })
}

/// The course page. `failed` names the form whose errors `form` holds
/// (`settings`, `screen`, `block`, `embed`); `link` is a just-minted embed
/// link, shown once.
pub(super) async fn course_page(
    s: &AppState,
    ctx: &Ctx,
    me: &courses_core::members::SignedIn,
    id: &str,
    form: &Form,
    failed: &str,
    link: Option<&str>,
) -> Response {
    let themes = match super::themes::themes_of(s, me).await {
        Ok(themes) => themes,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let certificate_templates = match super::certificates::templates_of(s, me).await {
        Ok(templates) => templates,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let result = s.courses.course(&me.access, id).await.map(|course| {
        s.render(
            ctx,
            super::form_status(form),
            "course.html",
            "courses",
            json!({
                "course": course_view(&course),
                "theme_id": course.theme_id,
                "themes": themes,
                "certificate_id": course.certificate_id,
                "generation": super::generate::generation_of(&course.extra).map(|g| g.sentence),
                "certificate_templates": certificate_templates,
                "form": form.view(),
                "failed": failed,
                "embed_link": link,
                "block_kinds": courses_core::block_form::FORM_KINDS
                    .iter()
                    .map(|(value, label)| json!({ "value": value, "label": label }))
                    .collect::<Vec<_>>(),
            }),
        )
    });
    page_or_error(s, ctx, result)
}

pub(super) async fn show(State(s): St, Path(id): Path<String>, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => course_page(&s, &ctx, &me, &id, &Form::default(), "", None).await,
        Err(response) => response,
    }
}

/// Publish or unpublish (`status` is `published` or `draft`).
pub(super) async fn set_status(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let status = match p.form.get("status") {
        "published" => CourseStatus::Published,
        _ => CourseStatus::Draft,
    };
    let result = match p.me.writer() {
        Ok(access) => s.courses.set_course_status(access, &id, status).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) if status == CourseStatus::Published => {
            s.redirect_with(&format!("/courses/{id}"), "success", "Published: learners with a link can open it.")
        }
        Ok(_) => s.redirect_with(
            &format!("/courses/{id}"),
            "info",
            "Back to draft: its links answer 404 until it is published again.",
        ),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// A screen with a title and, optionally, a first text block.
pub(super) async fn add_screen(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let mut body = Map::new();
    body.insert("title".into(), json!(p.form.get("title").trim()));
    let text = p.form.get("text").trim();
    let blocks = if text.is_empty() { json!([]) } else { json!([{ "type": "text", "text": text }]) };
    body.insert("blocks".into(), blocks);
    match s.courses.add_screen(access, &id, &body).await {
        Ok(_) => s.redirect_with(&format!("/courses/{id}"), "success", "Screen added."),
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            course_page(&s, &p.ctx, &p.me, &id, &form_with_error(p.form, &e), "screen", None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// The course as learners see it, in the learner player itself (draft or
/// published; nothing recorded, no course view counted): the course page
/// frames it, so every saved change shows there.
pub(super) async fn preview(
    State(s): St,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    // `?lang=` plays a translation, as on a learner's link.
    let lang = crate::extract::query_param(query.as_deref(), "lang");
    match s.courses.studio_preview(&me, &id, lang.as_deref()).await {
        Ok(session) => crate::player::player_response(&session, false),
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

#[derive(Deserialize)]
pub(super) struct ExportQuery {
    #[serde(default)]
    version: String,
}

/// The SCORM package of a course, on every plan (the API's twin keeps the
/// seed's Scale gate).
pub(super) async fn export_scorm(
    State(s): St,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let requested = serde_urlencoded::from_str::<ExportQuery>(query.as_deref().unwrap_or_default())
        .map(|q| q.version)
        .unwrap_or_default();
    let Some(version) = ScormVersion::parse(if requested.is_empty() { "2004" } else { &requested }) else {
        return s.message(StatusCode::BAD_REQUEST, "That did not work", "The SCORM version is 1.2 or 2004.");
    };
    match s.courses.studio_export_scorm(&me, &id, version).await {
        Ok((course, zip)) => {
            let name = format!("attachment; filename=\"{}-scorm{}.zip\"", course.id, version.as_str().replace('.', ""));
            let disposition = HeaderValue::from_str(&name).unwrap_or_else(|_| HeaderValue::from_static("attachment"));
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static("application/zip")),
                    (header::CONTENT_DISPOSITION, disposition),
                    (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                ],
                zip,
            )
                .into_response()
        }
        Err(e) => s.error_page(Some(&ctx), e),
    }
}
