//! `/api/v1/projects` and `/api/v1/projects/{slug}`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::projects::{CreateProject, ProjectPatch};
use hub_core::{Action, Source};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonObject, QueryParams};
use crate::wire::{ListBody, ProjectBody};

pub async fn list(
    State(state): State<AppState>,
    Caller(caller): Caller,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let page = query.page()?;
    let projects = state.hub.list_projects(&caller, query.get("q"), page).await?;
    Ok(Json(ListBody::<ProjectBody>::from_page(projects)).into_response())
}

pub async fn create(
    State(state): State<AppState>,
    Caller(caller): Caller,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["name", "slug", "is_public", "base_url"])?;
    let input = CreateProject {
        name: body.string("name")?.ok_or_else(|| ApiError::field("name", "name is required"))?,
        slug: body.nullable_string("slug")?.flatten(),
        is_public: body.boolean("is_public")?,
        base_url: body.nullable_string("base_url")?.flatten(),
    };
    let project = state.hub.create_project(&caller, input, Source::Api).await?;
    let location = format!("/api/v1/projects/{}", project.slug);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(ProjectBody::from(project))).into_response())
}

/// The hottest read: authentication and the role gate in one round trip.
pub async fn get(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    let authorization = headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    let (_, found) = state.hub.authorize_token_for_project(authorization, &slug, Action::ViewProject).await?;
    Ok(Json(ProjectBody::from(found.project)).into_response())
}

pub async fn update(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["name", "is_public", "base_url", "custom_domain"])?;
    let patch = ProjectPatch {
        name: body.string("name")?,
        is_public: body.boolean("is_public")?,
        base_url: body.nullable_string("base_url")?,
        custom_domain: body.nullable_string("custom_domain")?,
    };
    let project = state.hub.update_project(&caller, &slug, patch, Source::Api).await?;
    Ok(Json(ProjectBody::from(project)).into_response())
}

pub async fn delete(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
) -> Result<Response, ApiError> {
    state.hub.delete_project(&caller, &slug, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
