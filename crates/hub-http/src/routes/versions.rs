//! `/api/v1/projects/{slug}/versions` and `/api/v1/projects/{slug}/versions/{label}`.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use hub_core::plans::fixed::MAX_SPEC_BYTES;
use hub_core::versions::{PushOutcome, PushVersion, VersionPatch};
use platform::http::{BodyError, read_body_limited};

use crate::AppState;
use crate::error::{ApiError, Code};
use crate::extract::{Caller, JsonObject, QueryParams};
use crate::wire::{ListBody, VersionBody};

pub async fn list(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let page = query.page()?;
    let include_previews = query.boolean("include_previews")?.unwrap_or(false);
    let versions = state.hub.list_versions(&caller, &slug, include_previews, page).await?;
    Ok(Json(ListBody::<VersionBody>::from_page(versions)).into_response())
}

/// Pushes a spec: the raw document is the body (at most 50 MB; the format is
/// sniffed from the content, `Content-Type` is only a hint).
pub async fn push(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
    axum::Extension(docs): axum::Extension<Arc<crate::docs_site::DocsServer>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let push = push_parameters(&query)?;
    // Authorise before reading up to 50 MB from a caller who may not push.
    state.hub.authorize_project(&caller, &slug, hub_core::Action::PushVersion).await?;
    let document = read_spec(&headers, body).await?;
    let outcome = state.hub.push_version(&caller, &slug, PushVersion { body: document, ..push }, Source::Api).await?;
    docs.prepare(outcome.version.spec_sha256.clone());
    Ok(push_response(&slug, outcome))
}

/// The push parameters of the query string (the body is read separately).
pub fn push_parameters(query: &QueryParams) -> Result<PushVersion, ApiError> {
    Ok(PushVersion {
        label: query.get("label").map(str::to_owned),
        make_default: query.boolean("makeDefault")?.unwrap_or(false),
        preview: query.boolean("preview")?.unwrap_or(false),
        pr: query.integer("pr")?,
        commit: query.get("commit").map(str::to_owned),
        branch: query.get("branch").map(str::to_owned),
        body: Arc::from(Vec::new()),
    })
}

/// Reads a pushed document, refusing it as soon as it passes 50 MB.
pub async fn read_spec(headers: &HeaderMap, body: Body) -> Result<Arc<[u8]>, ApiError> {
    let document = read_body_limited(headers, body, MAX_SPEC_BYTES).await.map_err(|err| match err {
        BodyError::TooLarge { limit } => ApiError::from(hub_core::HubError::TooLarge { limit }),
        BodyError::Read(cause) => ApiError::new(Code::ValidationError, format!("could not read the body: {cause}")),
    })?;
    Ok(Arc::from(document.as_ref()))
}

/// 201 for a new version, 200 for a replaced spec, with `Location`.
pub fn push_response(slug: &str, outcome: PushOutcome) -> Response {
    let status = if outcome.created { StatusCode::CREATED } else { StatusCode::OK };
    let location = format!("/api/v1/projects/{slug}/versions/{}", outcome.version.label);
    (status, [(header::LOCATION, location)], Json(VersionBody::from(outcome.version))).into_response()
}

pub async fn get(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, label)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let version = state.hub.version(&caller, &slug, &label).await?;
    Ok(Json(VersionBody::from(version)).into_response())
}

pub async fn update(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, label)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["is_default", "is_active", "base_url"])?;
    let patch = VersionPatch {
        is_default: body.boolean("is_default")?,
        is_active: body.boolean("is_active")?,
        base_url: body.nullable_string("base_url")?,
    };
    let version = state.hub.update_version(&caller, &slug, &label, patch, Source::Api).await?;
    Ok(Json(VersionBody::from(version)).into_response())
}

pub async fn delete(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, label)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.delete_version(&caller, &slug, &label, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
