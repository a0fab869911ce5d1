//! `GET /api/projects/{slug}/diff?from=LABEL&to=LABEL[&format=markdown]`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};

pub async fn diff(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Path(slug): Path<String>,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let from = query.get("from").ok_or_else(|| ApiError::field("from", "from (a version label) is required"))?;
    let to = query.get("to").ok_or_else(|| ApiError::field("to", "to (a version label) is required"))?;
    let markdown = match query.get("format").unwrap_or("json") {
        "json" => false,
        "markdown" => true,
        _ => return Err(ApiError::field("format", "format must be json or markdown")),
    };
    let result = state.hub.diff_versions(&caller, &slug, from, to).await?;
    if markdown {
        let title = format!("{slug}: {} → {}", result.from, result.to);
        let body = result.report.to_markdown(&title);
        return Ok(([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], body).into_response());
    }
    let report = &result.report;
    Ok(Json(json!({
        "from": result.from,
        "to": result.to,
        "bump": report.bump,
        "summary": report.summary,
        "changes": report.changes,
    }))
    .into_response())
}
