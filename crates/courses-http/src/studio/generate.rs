//! Course generation in the studio (Build and up): a prompt, the number of
//! screens and an optional source text (pasted, or read from a PDF,
//! Markdown or text file), written by the configured model or the built-in
//! offline writer; the page says which before and after.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use courses_core::members::SignedIn;
use courses_core::source_text::MAX_SOURCE_FILE_BYTES;
use courses_core::{CoursesError, Feature};
use page_kit::Form;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_status, form_with_error_as};
use crate::AppState;

/// The body limit of the file upload: the file and the form around it.
pub(super) const BODY_LIMIT: usize = MAX_SOURCE_FILE_BYTES + 64 * 1024;

fn page(s: &AppState, ctx: &Ctx, me: &SignedIn, form: &Form, note: Option<String>) -> Response {
    let mut view = form.view();
    if !form.values.contains_key("screens")
        && let Some(values) = view.get_mut("values").and_then(Value::as_object_mut)
    {
        values.insert("screens".to_owned(), json!(courses_core::generate::DEFAULT_SCREENS_TARGET.to_string()));
    }
    s.render(
        ctx,
        form_status(form),
        "generate.html",
        "courses",
        json!({
            "allowed": me.access.workspace.plan.allows(Feature::Generation),
            "minimum": Feature::Generation.minimum_plan().to_string(),
            "model": s.courses.generation_model(),
            "max_screens": courses_core::generate::MAX_SCREENS_TARGET,
            "max_prompt": courses_core::generate::MAX_PROMPT_CHARS,
            "max_source": courses_core::offline_writer::MAX_SOURCE_CHARS,
            "note": note,
            "form": view,
        }),
    )
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => page(&s, &ctx, &me, &Form::default(), None),
        Err(response) => response,
    }
}

/// Generates a draft course and opens it.
pub(super) async fn create(State(s): St, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let mut body = Map::new();
    body.insert("prompt".into(), json!(p.form.get("prompt").trim()));
    let screens = p.form.get("screens").trim();
    body.insert("screensTarget".into(), screens.parse::<u64>().map_or_else(|_| json!(screens), |n| json!(n)));
    let source = p.form.get("source_text").trim();
    if !source.is_empty() {
        body.insert("sourceText".into(), json!(source));
    }
    match s.courses.generate_course(&p.me.access, &body).await {
        Ok(course) => {
            let by = match generation_of(&course.extra) {
                Some(g) => g.sentence,
                None => "Course generated.".to_owned(),
            };
            s.redirect_with(&format!("/courses/{}", course.id), "success", &by)
        }
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(
                p.form,
                &e,
                &[("prompt", "prompt"), ("screensTarget", "screens"), ("sourceText", "source_text")],
            );
            page(&s, &p.ctx, &p.me, &form, None)
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// Reads a source file (PDF, Markdown or text) into the form's source text
/// for the author to check before generating; nothing is stored.
pub(super) async fn read_source(State(s): St, request: Request) -> Response {
    let headers = request.headers().clone();
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if let Err(e) = me.writer() {
        return s.error_page(Some(&ctx), e);
    }
    // The token travels in the form's address, so a forged upload is
    // refused before its body is read.
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(request.uri().query().unwrap_or("")).unwrap_or_default();
    let token = Form { values: query.into_iter().collect(), errors: Vec::new() };
    if let Err(response) = s.check_csrf(&headers, &token) {
        return response;
    }
    let too_large = format!("A source file is at most {MAX_SOURCE_FILE_BYTES} bytes.");
    let upload = match page_kit::read_upload(request, "file", MAX_SOURCE_FILE_BYTES, &too_large).await {
        Ok(upload) => upload,
        Err(message) => {
            let status = if message == too_large { StatusCode::PAYLOAD_TOO_LARGE } else { StatusCode::BAD_REQUEST };
            let mut response = page(&s, &ctx, &me, &Form::default().with_message(Some("file"), message), None);
            *response.status_mut() = status;
            return response;
        }
    };
    let mut form = Form::default();
    for (name, value) in &upload.texts {
        if name != platform::web::CSRF_FIELD {
            form.values.insert(name.clone(), value.clone());
        }
    }
    let Some(bytes) = upload.file.filter(|b| !b.is_empty()) else {
        return page(&s, &ctx, &me, &form.with_message(Some("file"), "Choose a file to read."), None);
    };
    let name = upload.file_name.unwrap_or_else(|| "the file".to_owned());
    // Parsing a PDF is CPU work: off the async threads.
    let read = tokio::task::spawn_blocking(move || courses_core::source_text::read(&bytes)).await;
    match read {
        Ok(Ok(source)) => {
            let chars = source.text.chars().count();
            form.values.insert("source_text".to_owned(), source.text);
            let note = if source.truncated {
                format!(
                    "Read {name}: its first {chars} characters, the most the generator takes. Check the text below, then generate."
                )
            } else {
                format!("Read {chars} characters from {name}. Check the text below, then generate.")
            };
            page(&s, &ctx, &me, &form, Some(note))
        }
        Ok(Err(e @ CoursesError::Invalid { .. })) => page(&s, &ctx, &me, &super::form_with_error(form, &e), None),
        Ok(Err(e)) => s.error_page(Some(&ctx), e),
        Err(_) => page(&s, &ctx, &me, &form.with_message(Some("file"), "This file could not be read."), None),
    }
}

/// What a generated course says of its writer, from its `generation` field.
pub(super) struct Generation {
    pub sentence: String,
}

pub(super) fn generation_of(extra: &Map<String, Value>) -> Option<Generation> {
    let g = extra.get("generation")?;
    let source = if g.get("sourceText").is_some_and(|s| !s.is_null()) {
        " from the prompt and a source text"
    } else {
        " from the prompt"
    };
    let sentence = match g.get("provider").and_then(Value::as_str)? {
        "llm" => format!(
            "Generated by the model {}{source}. Check every screen before publishing.",
            g.get("model").and_then(Value::as_str).unwrap_or("configured")
        ),
        _ => match g.get("fallbackFrom").and_then(|f| f.get("model")).and_then(Value::as_str) {
            Some(model) => format!(
                "Generated by the built-in offline writer{source}, because the model {model} did not answer with a usable course."
            ),
            None => format!("Generated by the built-in offline writer{source} (no model is configured)."),
        },
    };
    Some(Generation { sentence })
}
