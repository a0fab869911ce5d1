//! Learners: the list with their completions, and the CSV importer (up to
//! 1,000 rows, previewed with each row's problems before anything is
//! written).

use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use courses_core::ListItem;
use courses_core::courses::ListRequest;
use courses_core::learner_import::ImportRow;
use courses_core::members::SignedIn;
use page_kit::Form;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Ctx, St, form_status};
use crate::AppState;

/// Learners and completions per page.
const PER_PAGE: u64 = 25;
/// The largest CSV file the importer reads (1,000 rows fit many times over).
const MAX_CSV_BYTES: usize = 1_000_000;

#[derive(Deserialize, Default)]
struct PageQuery {
    #[serde(default)]
    offset: u64,
}

/// Collects one page of a streamed list, and whether more follow.
async fn collect<T>(
    mut rx: tokio::sync::mpsc::Receiver<ListItem<T>>,
) -> Result<(Vec<T>, bool), courses_core::CoursesError> {
    let mut items = Vec::new();
    while let Some(item) = rx.recv().await {
        match item {
            ListItem::Item(item) => items.push(item),
            ListItem::End { has_more } => return Ok((items, has_more)),
            ListItem::Failed(e) => return Err(e.into()),
        }
    }
    Ok((items, false))
}

fn row_view(row: &ImportRow) -> Value {
    json!({ "line": row.line, "external_id": row.external_id, "name": row.name, "email": row.email, "error": row.error })
}

async fn learners_page(
    s: &AppState,
    ctx: &Ctx,
    me: &SignedIn,
    offset: u64,
    form: &Form,
    preview: Option<(&[ImportRow], &str)>,
) -> Response {
    let learners = collect(s.courses.list_identities(&me.access, ListRequest::new(Some(PER_PAGE), Some(offset)))).await;
    let completions = collect(s.courses.list_completions(&me.access, ListRequest::new(Some(PER_PAGE), Some(0)))).await;
    let certificates =
        collect(s.courses.list_certificates(&me.access, ListRequest::new(Some(PER_PAGE), Some(0)))).await;
    let ((learners, more), (completions, _), (certificates, _)) = match (learners, completions, certificates) {
        (Ok(l), Ok(c), Ok(i)) => (l, c, i),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return s.error_page(Some(ctx), e),
    };
    let certificates_view: Vec<Value> = certificates
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "learner": c.learner_name,
                "course": c.course_title,
                "score": c.score.map(|s| format!("{s:.0} %")),
                "when": page_kit::when(c.issued_at),
            })
        })
        .collect();
    let names: std::collections::HashMap<&str, &str> =
        learners.iter().map(|l| (l.id.as_str(), l.name.as_deref().unwrap_or(l.external_id.as_str()))).collect();
    let learners_view: Vec<Value> = learners
        .iter()
        .map(|l| json!({ "external_id": l.external_id, "name": l.name, "email": l.email, "added": page_kit::when(l.created_at) }))
        .collect();
    let completions_view: Vec<Value> = completions
        .iter()
        .map(|c| {
            json!({
                "learner": names.get(c.identity_id.as_str()).copied().unwrap_or(c.identity_id.as_str()),
                "course": c.course_id,
                "score": c.score.map(|s| format!("{s:.0} %")),
                "passed": c.passed,
                "when": page_kit::when(c.created_at),
            })
        })
        .collect();
    let shown = u64::try_from(learners.len()).unwrap_or(0);
    let total = if more { offset + shown + 1 } else { offset + shown };
    let preview_view = preview.map(|(rows, csv)| {
        let problems = rows.iter().filter(|r| r.error.is_some()).count();
        json!({ "rows": rows.iter().map(row_view).collect::<Vec<_>>(), "problems": problems, "count": rows.len(), "csv": csv })
    });
    s.render(
        ctx,
        if preview.is_some_and(|(rows, _)| rows.iter().any(|r| r.error.is_some())) {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            form_status(form)
        },
        "learners.html",
        "learners",
        json!({
            "learners": learners_view,
            "completions": completions_view,
            "certificates": certificates_view,
            "page": page_kit::pager(total, offset, u32::try_from(PER_PAGE).unwrap_or(25)),
            "form": form.view(),
            "preview": preview_view,
            "max_rows": courses_core::learner_import::MAX_IMPORT_ROWS,
        }),
    )
}

pub(super) async fn show(State(s): St, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let query: PageQuery = serde_urlencoded::from_str(query.as_deref().unwrap_or_default()).unwrap_or_default();
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => learners_page(&s, &ctx, &me, query.offset, &Form::default(), None).await,
        Err(response) => response,
    }
}

/// The uploaded file, previewed: every row with its problem; nothing is
/// written. The session and role are checked before the body is read, the
/// CSRF token (a field of the upload) right after.
pub(super) async fn preview(State(s): St, request: Request) -> Response {
    let headers = request.headers().clone();
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if let Err(e) = me.writer() {
        return s.error_page(Some(&ctx), e);
    }
    let upload = match page_kit::read_upload(request, "file", MAX_CSV_BYTES, "The file is larger than 1 MB.").await {
        Ok(upload) => upload,
        Err(message) => {
            let form = Form::default().with_message(Some("file"), message);
            return learners_page(&s, &ctx, &me, 0, &form, None).await;
        }
    };
    let token = Form {
        values: [(platform::web::CSRF_FIELD.to_owned(), upload.text(platform::web::CSRF_FIELD).to_owned())].into(),
        errors: Vec::new(),
    };
    if let Err(response) = s.check_csrf(&headers, &token) {
        return response;
    }
    let Some(text) = upload.file.as_deref().filter(|b| !b.is_empty()).map(String::from_utf8_lossy) else {
        let form = Form::default().with_message(Some("file"), "Choose a CSV file.");
        return learners_page(&s, &ctx, &me, 0, &form, None).await;
    };
    match s.courses.preview_learner_import(&me, &text).await {
        Ok(rows) => learners_page(&s, &ctx, &me, 0, &Form::default(), Some((&rows, &text))).await,
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            let form = super::form_with_error_as(Form::default(), &e, &[("csv", "file")]);
            learners_page(&s, &ctx, &me, 0, &form, None).await
        }
        Err(e) => s.error_page(Some(&ctx), e),
    }
}

/// The previewed file, imported in one transaction.
pub(super) async fn import(State(s): St, request: Request) -> Response {
    let p = match s.studio_posted(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let text = p.form.get("csv").to_owned();
    match s.courses.import_learners(&p.me, &text).await {
        Ok((created, updated)) => s.redirect_with(
            "/learners",
            "success",
            &format!("Imported: {created} new learner{}, {updated} updated.", if created == 1 { "" } else { "s" }),
        ),
        Err(e @ courses_core::CoursesError::Invalid { .. }) => {
            let form = super::form_with_error_as(Form::default(), &e, &[("csv", "file")]);
            learners_page(&s, &p.ctx, &p.me, 0, &form, None).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}

/// An issued certificate's PDF, for a member of its workspace (printed as
/// the API prints it: the template and theme the plan allows).
pub(super) async fn certificate_pdf(
    State(s): St,
    axum::extract::Path(file): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let result = async {
        let id = file.strip_suffix(".pdf").ok_or(courses_core::CoursesError::not_found("issued certificate"))?;
        let cert = s.courses.certificate(&me.access, id).await?;
        s.courses.certificate_pdf(&cert).await.map(|pdf| (cert, pdf))
    }
    .await;
    match result {
        Ok((cert, pdf)) => crate::routes::pdf_response(pdf, &cert.id).unwrap_or_else(|e| e.into_response()),
        Err(e) => s.error_page(Some(&ctx), e),
    }
}
