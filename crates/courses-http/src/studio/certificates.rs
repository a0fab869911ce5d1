//! Certificate templates (Scale and up): the workspace's templates, a new
//! one, a template's editor, and the PDF preview of the form as it stands
//! (saved or not), printed for the signed-in person and, when chosen, a
//! course's title and theme. A course's settings choose its template.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use courses_core::courses::ListRequest;
use courses_core::members::SignedIn;
use courses_core::{CoursesError, Feature, ListItem, Resource, ResourceKind};
use page_kit::Form;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_status, form_with_error};
use crate::AppState;

/// The template fields of the editor, as the API names them.
const FIELDS: [&str; 3] = ["name", "title", "body"];

/// The workspace's certificate templates as `{id, name, title, body}`, or
/// none below Scale.
pub(super) async fn templates_of(s: &AppState, me: &SignedIn) -> Result<Option<Vec<Value>>, CoursesError> {
    if !me.access.workspace.plan.allows(Feature::CertificateTemplates) {
        return Ok(None);
    }
    let mut rx =
        s.courses.list_resources(&me.access, ResourceKind::CertificateTemplate, ListRequest::new(Some(200), None))?;
    let mut templates = Vec::new();
    while let Some(item) = rx.recv().await {
        match item {
            ListItem::Item(t) => templates.push(view(&t)),
            ListItem::End { .. } => break,
            ListItem::Failed(e) => return Err(e.into()),
        }
    }
    Ok(Some(templates))
}

fn view(t: &Resource) -> Value {
    let text = |name: &str| t.data.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
    json!({ "id": t.id, "name": text("name"), "title": text("title"), "body": text("body") })
}

/// The API body of the posted form: empty title and body mean the
/// built-in wording.
fn body_of(form: &Form) -> Map<String, Value> {
    let mut body = Map::new();
    for field in FIELDS {
        let value = form.get(field).trim();
        let value = if value.is_empty() && field != "name" { Value::Null } else { json!(value) };
        body.insert(field.into(), value);
    }
    body
}

/// The courses to preview with, newest first.
async fn course_choices(s: &AppState, me: &SignedIn) -> Result<Vec<Value>, CoursesError> {
    let (lines, _) = s.courses.studio_courses(me, "", 100, 0).await?;
    Ok(lines.iter().map(|c| json!({ "id": c.id, "title": c.title })).collect())
}

async fn page(s: &AppState, ctx: &Ctx, me: &SignedIn, editing: Option<&Resource>, form: &Form) -> Response {
    let result = async {
        let templates = templates_of(s, me).await?;
        let courses = if templates.is_some() { course_choices(s, me).await? } else { Vec::new() };
        Ok::<_, CoursesError>(s.render(
            ctx,
            form_status(form),
            "certificates.html",
            "certificates",
            json!({
                "allowed": templates.is_some(),
                "templates": templates,
                "editing": editing.map(view),
                "courses": courses,
                "minimum": Feature::CertificateTemplates.minimum_plan().to_string(),
                "form": form.view(),
            }),
        ))
    }
    .await;
    super::page_or_error(s, ctx, result)
}

/// The form of a saved template, filled.
fn filled(t: &Resource) -> Form {
    let mut form = Form::default();
    for field in FIELDS {
        let value = t.data.get(field).and_then(Value::as_str).unwrap_or_default();
        form.values.insert(field.to_owned(), value.to_owned());
    }
    form
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => page(&s, &ctx, &me, None, &Form::default()).await,
        Err(response) => response,
    }
}

pub(super) async fn edit(State(s): St, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match s.courses.resource(&me.access, ResourceKind::CertificateTemplate, &id).await {
        Ok(t) => page(&s, &ctx, &me, Some(&t), &filled(&t)).await,
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

pub(super) async fn create(State(s): St, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    match s.courses.create_resource(&p.me.access, ResourceKind::CertificateTemplate, &body_of(&p.form)).await {
        Ok((t, _)) => s.redirect_with(
            &format!("/certificates/{}", t.id),
            "success",
            "Template created: choose it in a course's settings.",
        ),
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error(p.form, &e);
            page(&s, &p.ctx, &p.me, None, &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

pub(super) async fn save(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    match s.courses.update_resource(access, ResourceKind::CertificateTemplate, &id, &body_of(&p.form)).await {
        Ok(_) => s.redirect_with(&format!("/certificates/{id}"), "success", "Template saved."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let editing = s.courses.resource(access, ResourceKind::CertificateTemplate, &id).await.ok();
            let form = form_with_error(p.form, &e);
            page(&s, &p.ctx, &p.me, editing.as_ref(), &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

pub(super) async fn delete(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    match s.courses.delete_resource(&p.me.access, ResourceKind::CertificateTemplate, &id).await {
        Ok(()) => s.redirect_with("/certificates", "success", "Template deleted."),
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// The PDF of the posted form, saved or not: any member may look (nothing
/// is written), with the session and the form's token checked.
pub(super) async fn preview(State(s): St, request: Request) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let course = p.form.get("course").trim();
    let course = (!course.is_empty()).then_some(course);
    let learner = p.me.member.display_name.trim();
    let learner = if learner.is_empty() { p.me.member.email.as_str() } else { learner };
    match s.courses.preview_certificate(&p.me.access, &body_of(&p.form), course, learner).await {
        Ok(pdf) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("application/pdf")),
                (header::CONTENT_DISPOSITION, HeaderValue::from_static("inline; filename=\"certificate-preview.pdf\"")),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            pdf,
        )
            .into_response(),
        Err(e @ CoursesError::Invalid { .. }) => {
            let editing = match p.form.get("template_id").trim() {
                "" => None,
                id => s.courses.resource(&p.me.access, ResourceKind::CertificateTemplate, id).await.ok(),
            };
            let form = form_with_error(p.form, &e);
            page(&s, &p.ctx, &p.me, editing.as_ref(), &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
