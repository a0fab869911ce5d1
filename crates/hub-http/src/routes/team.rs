//! `/api/v1/collaborators`, per-project overrides and invitations.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hub_core::Source;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonObject};
use crate::wire::CollaboratorBody;

pub async fn list(State(state): State<AppState>, Caller(caller): Caller) -> Result<Response, ApiError> {
    let team = state.hub.team(&caller).await?;
    let data: Vec<CollaboratorBody> = team.members.into_iter().map(CollaboratorBody::from).collect();
    let used = data.len();
    Ok(Json(json!({ "data": data, "seats": { "included": team.seats, "used": used }, "plan": team.plan.as_str() }))
        .into_response())
}

pub async fn invite(
    State(state): State<AppState>,
    Caller(caller): Caller,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["email", "role"])?;
    let email = body.string("email")?.ok_or_else(|| ApiError::field("email", "email is required"))?;
    let role = body.role("role")?.unwrap_or(hub_core::Role::Editor);
    let invited = state.hub.invite_collaborator(&caller, &email, role, Source::Api).await?;
    Ok((StatusCode::CREATED, Json(CollaboratorBody::from(invited))).into_response())
}

pub async fn update(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["role"])?;
    let role = body.role("role")?.ok_or_else(|| ApiError::field("role", "role is required"))?;
    let member = state.hub.set_collaborator_role(&caller, &id, role, Source::Api).await?;
    Ok(Json(CollaboratorBody::from(member)).into_response())
}

pub async fn remove(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    state.hub.remove_collaborator(&caller, &id, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn put_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["role"])?;
    let role = body.role("role")?.ok_or_else(|| ApiError::field("role", "role is required"))?;
    state.hub.set_project_override(&caller, &slug, &id, Some(role), Source::Api).await?;
    Ok(Json(json!({ "collaborator_id": id, "project": slug, "role": role.as_str() })).into_response())
}

pub async fn delete_override(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.hub.set_project_override(&caller, &slug, &id, None, Source::Api).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub async fn accept(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(token): Path<String>,
) -> Result<Response, ApiError> {
    let membership = state.hub.accept_invitation(&caller, &token, Source::Api).await?;
    Ok(Json(json!({
        "account_user_id": membership.account_user_id,
        "owner_email": membership.owner_email,
        "role": membership.role.as_str(),
        "status": "active",
    }))
    .into_response())
}
