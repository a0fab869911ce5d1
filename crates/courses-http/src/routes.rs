//! The `/v1` handlers: extract, call one `courses_core::Courses` use case,
//! map the result to a wire shape. No SQL and no business rule here.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courses_core::{CourseStatus, CoursesError, ResourceKind};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, Paging};
use crate::list::stream_list;
use crate::wire;

type ApiResult = Result<Response, ApiError>;

fn ok(value: Value) -> ApiResult {
    Ok(Json(value).into_response())
}

fn created(value: Value) -> ApiResult {
    Ok((StatusCode::CREATED, Json(value)).into_response())
}

fn no_content() -> ApiResult {
    Ok(StatusCode::NO_CONTENT.into_response())
}

// ---- workspace, keys, usage ----

pub async fn list_workspaces(Caller(access): Caller) -> ApiResult {
    ok(
        json!({ "object": "list", "data": [wire::workspace(&access.workspace)], "pagination": { "limit": 50, "offset": 0, "hasMore": false } }),
    )
}

fn own_workspace(access: &courses_core::Access, id: &str) -> Result<(), ApiError> {
    if access.workspace.id == id { Ok(()) } else { Err(CoursesError::not_found("workspace").into()) }
}

pub async fn get_workspace(Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    own_workspace(&access, &id)?;
    ok(wire::workspace(&access.workspace))
}

pub async fn update_workspace(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    own_workspace(&access, &id)?;
    let ws = match body.get("name") {
        Some(Value::String(name)) => s.courses.rename_workspace(&access, name).await?,
        Some(_) => return Err(CoursesError::field(&["name"], "invalid_type", "name must be a string").into()),
        None => access.workspace.clone(),
    };
    ok(wire::workspace(&ws))
}

pub async fn usage(State(s): State<AppState>, Caller(access): Caller) -> ApiResult {
    ok(wire::usage(&s.courses.usage(&access).await?))
}

pub async fn list_keys(State(s): State<AppState>, Caller(access): Caller) -> ApiResult {
    let keys = s.courses.list_keys(&access).await?;
    ok(
        json!({ "object": "list", "data": keys.iter().map(wire::api_key).collect::<Vec<_>>(), "pagination": { "limit": keys.len().max(50), "offset": 0, "hasMore": false } }),
    )
}

pub async fn create_key(State(s): State<AppState>, Caller(access): Caller, JsonBody(body): JsonBody) -> ApiResult {
    let name = match body.get("name") {
        None | Some(Value::Null) => "api",
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err(CoursesError::field(&["name"], "invalid_type", "name must be a string").into()),
    };
    let read_only = match body.get("readOnly") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(CoursesError::field(&["readOnly"], "invalid_type", "readOnly must be true or false").into());
        }
    };
    let (info, key) = s.courses.create_key(&access.workspace.id, name, read_only).await?;
    let mut body = wire::api_key(&info);
    if let Value::Object(map) = &mut body {
        map.insert("key".to_owned(), Value::String(key.into_inner()));
    }
    created(body)
}

pub async fn revoke_key(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    s.courses.revoke_key(&access, &id).await?;
    no_content()
}

pub async fn block_types(Caller(_): Caller) -> ApiResult {
    ok(crate::openapi::block_types())
}

// ---- generation ----

pub async fn generate(State(s): State<AppState>, Caller(access): Caller, JsonBody(body): JsonBody) -> ApiResult {
    created(wire::course(&s.courses.generate_course(&access, &body).await?))
}

// ---- courses ----

pub async fn list_courses(State(s): State<AppState>, Caller(access): Caller, Paging(page): Paging) -> ApiResult {
    stream_list(s.courses.list_courses(&access, page), page, wire::course).await
}

pub async fn create_course(State(s): State<AppState>, Caller(access): Caller, JsonBody(body): JsonBody) -> ApiResult {
    created(wire::course(&s.courses.create_course(&access, &body).await?))
}

pub async fn get_course(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::course(&s.courses.course(&access, &id).await?))
}

pub async fn update_course(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    ok(wire::course(&s.courses.update_course(&access, &id, &body).await?))
}

pub async fn delete_course(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    s.courses.delete_course(&access, &id).await?;
    no_content()
}

pub async fn publish_course(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::course(&s.courses.set_course_status(&access, &id, CourseStatus::Published).await?))
}

pub async fn unpublish_course(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::course(&s.courses.set_course_status(&access, &id, CourseStatus::Draft).await?))
}

/// `POST /v1/courses/{id}/embed-links`: a signed player link for one learner.
pub async fn mint_embed_link(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let link = s.courses.mint_embed_link(&access, &id, &body).await?;
    created(json!({
        "object": "embed_link",
        "courseId": link.course_id,
        "externalId": link.learner,
        "expiresAt": link.expires_at.to_rfc3339(),
        "expires": link.expires_at.as_millis().div_euclid(1000).to_string(),
        "signature": link.signature,
        "path": link.path,
        "url": link.url,
    }))
}

pub async fn export_scorm(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> ApiResult {
    let requested = crate::extract::query_param(query.as_deref(), "version").unwrap_or_else(|| "2004".to_owned());
    let version = courses_core::scorm::ScormVersion::parse(&requested).ok_or_else(|| {
        ApiError::from(CoursesError::field(&["version"], "invalid_value", "version must be 1.2 or 2004"))
    })?;
    let (course, zip) = s.courses.export_scorm(&access, &id, version).await?;
    let name = format!("attachment; filename=\"{}-scorm{}.zip\"", course.id, version.as_str().replace('.', ""));
    let disposition = HeaderValue::from_str(&name).unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/zip")),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        zip,
    )
        .into_response())
}

pub async fn import_csv(
    State(s): State<AppState>,
    Caller(access): Caller,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    crate::extract::CsvBody(body): crate::extract::CsvBody,
) -> ApiResult {
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::from(CoursesError::field(&["csv"], "invalid_value", "the CSV must be UTF-8")))?;
    let title = crate::extract::query_param(query.as_deref(), "title");
    created(wire::course(&s.courses.import_csv(&access, title.as_deref(), text).await?))
}

pub async fn import_scorm(
    State(s): State<AppState>,
    Caller(access): Caller,
    headers: axum::http::HeaderMap,
    body: axum::body::Body,
) -> ApiResult {
    // The plan gate answers before up to 100 MB are read.
    s.courses.require(&access, courses_core::Feature::ScormApi)?;
    let zip = crate::extract::read_package(&headers, body).await?;
    created(wire::course(&s.courses.import_scorm(&access, &zip).await?))
}

// ---- screens ----

pub async fn list_screens(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    let course = s.courses.course(&access, &id).await?;
    ok(
        json!({ "object": "list", "data": course.screens, "pagination": { "limit": course.screens.len().max(50), "offset": 0, "hasMore": false } }),
    )
}

pub async fn add_screen(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let (index, screen) = s.courses.add_screen(&access, &id, &body).await?;
    created(json!({ "index": index, "screen": screen }))
}

pub async fn get_screen(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
) -> ApiResult {
    let (index, screen) = s.courses.screen(&access, &id, &screen).await?;
    ok(json!({ "index": index, "screen": screen }))
}

pub async fn update_screen(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    ok(s.courses.update_screen(&access, &id, &screen, &body).await?)
}

pub async fn delete_screen(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
) -> ApiResult {
    s.courses.delete_screen(&access, &id, &screen).await?;
    no_content()
}

pub async fn duplicate_screen(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
) -> ApiResult {
    let (index, screen) = s.courses.duplicate_screen(&access, &id, &screen).await?;
    created(json!({ "index": index, "screen": screen }))
}

pub async fn reorder_screens(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let ordered = match body.get("orderedScreenIds") {
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {
            ids.iter().filter_map(Value::as_str).map(str::to_owned).collect::<Vec<_>>()
        }
        Some(_) => {
            return Err(CoursesError::field(
                &["orderedScreenIds"],
                "invalid_type",
                "orderedScreenIds must be an array of screen ids",
            )
            .into());
        }
        None => {
            return Err(CoursesError::field(&["orderedScreenIds"], "required", "orderedScreenIds is required").into());
        }
    };
    ok(wire::course(&s.courses.reorder_screens(&access, &id, &ordered).await?))
}

// ---- blocks ----

pub async fn list_blocks(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
) -> ApiResult {
    let (_, screen) = s.courses.screen(&access, &id, &screen).await?;
    let blocks = screen.get("blocks").cloned().unwrap_or_else(|| json!([]));
    let len = blocks.as_array().map_or(0, Vec::len);
    ok(
        json!({ "object": "list", "data": blocks, "pagination": { "limit": len.max(50), "offset": 0, "hasMore": false } }),
    )
}

pub async fn add_block(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let (index, block) = s.courses.add_block(&access, &id, &screen, &body).await?;
    created(json!({ "index": index, "block": block }))
}

pub async fn get_block(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen, block)): Path<(String, String, String)>,
) -> ApiResult {
    let (_, screen) = s.courses.screen(&access, &id, &screen).await?;
    let found = screen
        .get("blocks")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.iter().find(|b| b.get("id").and_then(Value::as_str) == Some(block.as_str())))
        .cloned()
        .ok_or(CoursesError::not_found("block"))?;
    ok(found)
}

pub async fn update_block(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen, block)): Path<(String, String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    ok(s.courses.update_block(&access, &id, &screen, &block, &body).await?)
}

pub async fn delete_block(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((id, screen, block)): Path<(String, String, String)>,
) -> ApiResult {
    s.courses.delete_block(&access, &id, &screen, &block).await?;
    no_content()
}

// ---- identities ----

pub async fn list_identities(State(s): State<AppState>, Caller(access): Caller, Paging(page): Paging) -> ApiResult {
    stream_list(s.courses.list_identities(&access, page), page, wire::identity).await
}

pub async fn create_identity(State(s): State<AppState>, Caller(access): Caller, JsonBody(body): JsonBody) -> ApiResult {
    let (identity, is_new) = s.courses.upsert_identity(&access, &body).await?;
    let status = if is_new { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(wire::identity(&identity))).into_response())
}

pub async fn bulk_create_identities(
    State(s): State<AppState>,
    Caller(access): Caller,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let (identities, created_count) = s.courses.bulk_upsert_identities(&access, &body).await?;
    ok(json!({
        "object": "list",
        "data": identities.iter().map(wire::identity).collect::<Vec<_>>(),
        "created": created_count,
        "updated": identities.len() - created_count,
    }))
}

pub async fn bulk_delete_identities(
    State(s): State<AppState>,
    Caller(access): Caller,
    JsonBody(body): JsonBody,
) -> ApiResult {
    ok(json!({ "deleted": s.courses.bulk_delete_identities(&access, &body).await? }))
}

pub async fn get_identity(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::identity(&s.courses.identity(&access, &id).await?))
}

pub async fn delete_identity(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    s.courses.delete_identity(&access, &id).await?;
    no_content()
}

// ---- completions and certificates ----

pub async fn list_completions(State(s): State<AppState>, Caller(access): Caller, Paging(page): Paging) -> ApiResult {
    stream_list(s.courses.list_completions(&access, page), page, wire::completion).await
}

pub async fn create_completion(
    State(s): State<AppState>,
    Caller(access): Caller,
    JsonBody(body): JsonBody,
) -> ApiResult {
    created(wire::completion(&s.courses.record_completion(&access, &body).await?))
}

pub async fn get_completion(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::completion(&s.courses.completion(&access, &id).await?))
}

pub async fn delete_completion(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    s.courses.delete_completion(&access, &id).await?;
    no_content()
}

pub async fn list_certificates(State(s): State<AppState>, Caller(access): Caller, Paging(page): Paging) -> ApiResult {
    stream_list(s.courses.list_certificates(&access, page), page, wire::certificate).await
}

pub async fn issue_certificate(
    State(s): State<AppState>,
    Caller(access): Caller,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let (cert, is_new) = s.courses.issue_certificate(&access, &body).await?;
    let status = if is_new { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(wire::certificate(&cert))).into_response())
}

pub async fn get_certificate(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    ok(wire::certificate(&s.courses.certificate(&access, &id).await?))
}

pub async fn delete_certificate(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(id): Path<String>,
) -> ApiResult {
    s.courses.delete_certificate(&access, &id).await?;
    no_content()
}

pub async fn certificate_pdf(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    let cert = s.courses.certificate(&access, &id).await?;
    pdf_response(s.courses.certificate_pdf(&cert).await?, &cert.id)
}

pub fn pdf_response(bytes: Vec<u8>, id: &str) -> ApiResult {
    let disposition = HeaderValue::from_str(&format!("inline; filename=\"{id}.pdf\""))
        .unwrap_or_else(|_| HeaderValue::from_static("inline"));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/pdf")),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

// ---- themes, certificate templates, translations, collections, webhooks ----

pub async fn list_deliveries(
    State(s): State<AppState>,
    Caller(access): Caller,
    Paging(page): Paging,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> ApiResult {
    let webhook = crate::extract::query_param(query.as_deref(), "webhookId")
        .ok_or_else(|| ApiError::from(CoursesError::field(&["webhookId"], "required", "webhookId is required")))?;
    stream_list(s.courses.list_deliveries(&access, &webhook, page).await?, page, wire::delivery).await
}

/// Queues a signed `webhook.test` message for one webhook; answers it.
pub async fn send_test_event(State(s): State<AppState>, Caller(access): Caller, Path(id): Path<String>) -> ApiResult {
    created(wire::delivery(&s.courses.send_test_event(&access, &id).await?))
}

/// Maps a path segment to its resource kind.
pub fn kind_of(segment: &str) -> Option<ResourceKind> {
    match segment {
        "themes" => Some(ResourceKind::Theme),
        "certificate-templates" => Some(ResourceKind::CertificateTemplate),
        "translations" => Some(ResourceKind::Translation),
        "collections" => Some(ResourceKind::Collection),
        "webhooks" => Some(ResourceKind::Webhook),
        _ => None,
    }
}

fn kind(segment: &str) -> Result<ResourceKind, ApiError> {
    kind_of(segment).ok_or_else(|| CoursesError::not_found("route").into())
}

pub async fn list_resources(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(segment): Path<String>,
    Paging(page): Paging,
) -> ApiResult {
    let rx = s.courses.list_resources(&access, kind(&segment)?, page)?;
    stream_list(rx, page, wire::resource).await
}

pub async fn create_resource(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path(segment): Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    let (resource, secret) = s.courses.create_resource(&access, kind(&segment)?, &body).await?;
    let mut body = wire::resource(&resource);
    if let (Some(secret), Value::Object(map)) = (secret, &mut body) {
        map.insert("secret".to_owned(), Value::String(secret));
    }
    created(body)
}

pub async fn get_resource(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((segment, id)): Path<(String, String)>,
) -> ApiResult {
    ok(wire::resource(&s.courses.resource(&access, kind(&segment)?, &id).await?))
}

pub async fn update_resource(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((segment, id)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult {
    ok(wire::resource(&s.courses.update_resource(&access, kind(&segment)?, &id, &body).await?))
}

pub async fn delete_resource(
    State(s): State<AppState>,
    Caller(access): Caller,
    Path((segment, id)): Path<(String, String)>,
) -> ApiResult {
    s.courses.delete_resource(&access, kind(&segment)?, &id).await?;
    no_content()
}
