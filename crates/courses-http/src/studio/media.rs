//! Media: the workspace's uploaded images, audio, video and fonts, and the
//! upload form (25 MB, fonts 5 MB; the type read from the bytes).

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use courses_core::CoursesError;
use courses_core::media::{MEDIA_LIMIT, Media};
use courses_core::members::SignedIn;
use page_kit::Form;
use serde_json::json;

use super::{Ctx, St, form_status, form_with_error_as};
use crate::AppState;

/// Room for the multipart framing and the short fields around the file.
const FRAMING: u64 = 64 * 1024;
const TOO_LARGE: &str = "too large";
/// The route's body limit: the largest file and its framing.
pub(super) const BODY_LIMIT: usize = 25_000_000 + 64 * 1024;

fn size_text(bytes: u64) -> String {
    #[expect(clippy::cast_precision_loss, reason = "sizes are far below 2^52")]
    let mb = bytes as f64 / 1_000_000.0;
    if bytes >= 100_000 { format!("{mb:.1} MB") } else { format!("{:.1} kB", mb * 1000.0) }
}

fn media_view(s: &AppState, m: &Media) -> serde_json::Value {
    let public = s.courses.members_config().public_url.trim_end_matches('/').to_owned();
    json!({
        "id": m.id,
        "name": m.name,
        "kind": m.kind.as_str(),
        "type": m.content_type,
        "size": size_text(m.size),
        "url": format!("{public}{}", m.path()),
        "path": m.path(),
        "when": page_kit::when(m.created_at),
    })
}

async fn media_page(
    s: &AppState,
    ctx: &Ctx,
    me: &SignedIn,
    form: &Form,
    status: Option<axum::http::StatusCode>,
) -> Response {
    let files = match s.courses.media_list(&me.access).await {
        Ok(files) => files,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let files: Vec<serde_json::Value> = files.iter().map(|m| media_view(s, m)).collect();
    s.render(
        ctx,
        status.unwrap_or_else(|| form_status(form)),
        "media.html",
        "media",
        json!({ "files": files, "form": form.view() }),
    )
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => media_page(&s, &ctx, &me, &Form::default(), None).await,
        Err(response) => response,
    }
}

/// The upload: the session, role and CSRF token (in the form's address, so
/// a forged request is refused before its body is read) first; a body
/// announced larger than the limit is refused unread (413), and the file
/// is read while streaming up to 25 MB.
pub(super) async fn upload(State(s): St, request: Request) -> Response {
    let headers = request.headers().clone();
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let access = match me.writer() {
        Ok(access) => access.clone(),
        Err(e) => return s.error_page(Some(&ctx), e),
    };
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(request.uri().query().unwrap_or("")).unwrap_or_default();
    let token = Form { values: query.into_iter().collect(), errors: Vec::new() };
    if let Err(response) = s.check_csrf(&headers, &token) {
        return response;
    }
    // A script's upload (`Accept: application/json`) gets the API's
    // envelope for a refusal; a form's gets the page.
    let wants_json = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"));
    let refuse = |e: CoursesError| {
        if wants_json { crate::error::ApiError::from(e).into_response() } else { s.error_page(Some(&ctx), e) }
    };
    let too_large = || CoursesError::TooLarge { what: "the upload", limit: MEDIA_LIMIT };
    let announced = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > MEDIA_LIMIT + FRAMING) {
        return refuse(too_large());
    }
    let limit = usize::try_from(MEDIA_LIMIT).unwrap_or(usize::MAX);
    let upload = match page_kit::read_upload(request, "file", limit, TOO_LARGE).await {
        Ok(upload) => upload,
        Err(message) if message == TOO_LARGE => return refuse(too_large()),
        Err(message) => {
            let form = Form::default().with_message(Some("file"), message);
            return media_page(&s, &ctx, &me, &form, None).await;
        }
    };
    let name = upload.file_name.clone().unwrap_or_default();
    let bytes = upload.file.unwrap_or_default();
    match s.courses.upload_media(&access, &name, bytes).await {
        Ok(media) => {
            s.redirect_with("/media", "success", &format!("Uploaded {}: its address is in the list.", media.name))
        }
        Err(e @ CoursesError::Invalid { .. }) if !wants_json => {
            let form = form_with_error_as(Form::default(), &e, &[]);
            media_page(&s, &ctx, &me, &form, None).await
        }
        Err(e) => refuse(e),
    }
}
