//! `GET /api/projects/{slug}/sdk?language=typescript|python[&version=LABEL]`.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use hub_core::sdks::Language;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};

pub async fn sdk(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let language = query
        .get("language")
        .ok_or_else(|| ApiError::field("language", "language (typescript or python) is required"))?;
    let language = Language::parse(language)
        .ok_or_else(|| ApiError::field("language", "language must be typescript or python"))?;
    let sdk = state.hub.generate_sdk(&caller, &slug, language, query.get("version")).await?;
    Ok((
        [
            (header::CONTENT_TYPE, sdk.language.media_type().to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{}\"", sdk.file_name)),
        ],
        sdk.source,
    )
        .into_response())
}
