//! `/api/v1/audit`, its CSV export, settings and webhook (Business).

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use hub_core::Source;
use hub_core::audit_log::{AuditFilter, SettingsPatch, event_json};
use kernel::Timestamp;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonObject, QueryParams};

fn instant(query: &QueryParams, name: &str) -> Result<Option<Timestamp>, ApiError> {
    query
        .get(name)
        .map(|text| {
            parse_instant(text).ok_or_else(|| {
                ApiError::field(
                    name,
                    format!("{name} is an ISO 8601 date or date-time, e.g. 2026-11-26 or 2026-11-26T10:00:00Z"),
                )
            })
        })
        .transpose()
}

/// A date-time with an offset, or a date (its first millisecond, UTC).
pub(crate) fn parse_instant(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(Timestamp::from_millis(at.timestamp_millis()));
    }
    let date = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(Timestamp::from_millis(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis()))
}

/// The filters every audit read takes.
pub(crate) fn filter_of(query: &QueryParams) -> Result<AuditFilter, ApiError> {
    let category = query
        .get("category")
        .filter(|c| !c.is_empty())
        .map(|c| c.parse().map_err(|message: String| ApiError::field("category", message)))
        .transpose()?;
    Ok(AuditFilter {
        from: instant(query, "from")?,
        to: instant(query, "to")?,
        actor: query.get("actor").map(str::to_owned),
        project: query.get("project").map(str::to_owned),
        category,
        q: query.get("q").map(str::to_owned),
    })
}

pub async fn list(
    State(state): State<AppState>,
    Caller(caller): Caller,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let filter = filter_of(&query)?;
    let page = state.hub.audit_log_page(&caller, &filter, query.page()?).await?;
    let request = page.request;
    let data: Vec<Value> = page.items.iter().map(event_json).collect();
    Ok(Json(json!({
        "data": data,
        "pagination": { "total": page.total, "limit": request.limit(), "offset": request.offset() },
    }))
    .into_response())
}

pub async fn export_csv(
    State(state): State<AppState>,
    Caller(caller): Caller,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let filter = filter_of(&query)?;
    let stream = state.hub.audit_csv(&caller, &filter).await?;
    // A failure after the first bytes cannot change the status any more:
    // the stream ends early and the log says why.
    let body = Body::from_stream(stream.map(|chunk| {
        chunk.map_err(|err| {
            tracing::error!(error = %err, "the audit export stopped");
            std::io::Error::other(err.to_string())
        })
    }));
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8; header=present"));
    headers.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"audit.csv\""));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

fn settings_json(settings: &hub_core::audit_log::AuditSettings) -> Value {
    json!({
        "retention_days": settings.retention_days,
        "webhook_url": settings.webhook_url,
        "chat_webhook_url": settings.chat_webhook_url,
    })
}

pub async fn get_settings(State(state): State<AppState>, Caller(caller): Caller) -> Result<Response, ApiError> {
    let settings = state.hub.audit_settings(&caller).await?;
    Ok(Json(settings_json(&settings)).into_response())
}

pub async fn put_settings(
    State(state): State<AppState>,
    Caller(caller): Caller,
    body: JsonObject,
) -> Result<Response, ApiError> {
    body.only(&["retention_days", "webhook_url", "chat_webhook_url"])?;
    let patch = SettingsPatch {
        retention_days: body.integer("retention_days")?,
        webhook_url: body.nullable_string("webhook_url")?,
        chat_webhook_url: body.nullable_string("chat_webhook_url")?,
    };
    let (settings, secret) = state.hub.update_audit_settings(&caller, patch, Source::Api).await?;
    let mut out = settings_json(&settings);
    if let (Some(secret), Value::Object(map)) = (secret, &mut out) {
        map.insert("webhook_secret".to_owned(), json!(secret.expose()));
    }
    let mut response = Json(out).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

fn delivery_json(d: &hub_core::audit_log::Delivery) -> Value {
    json!({
        "delivery_id": d.delivery_id,
        "action": d.action,
        "status": d.status,
        "latency_ms": d.latency_ms,
        "error": d.error,
        "attempted_at": d.attempted_at.to_rfc3339(),
    })
}

pub async fn test_webhook(State(state): State<AppState>, Caller(caller): Caller) -> Result<Response, ApiError> {
    let delivery = state.hub.send_test_event(&caller).await?;
    Ok(Json(json!({ "status": delivery.status, "latency_ms": delivery.latency_ms, "error": delivery.error }))
        .into_response())
}

pub async fn deliveries(
    State(state): State<AppState>,
    Caller(caller): Caller,
    query: QueryParams,
) -> Result<Response, ApiError> {
    let limit = query.page()?.limit();
    let rows = state.hub.audit_deliveries(&caller, limit).await?;
    let data: Vec<Value> = rows.iter().map(delivery_json).collect();
    Ok(Json(json!({ "data": data })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_read_dates_and_date_times() {
        assert_eq!(parse_instant("1970-01-02"), Some(Timestamp::from_millis(86_400_000)));
        assert_eq!(parse_instant("1970-01-01T00:00:01.5Z"), Some(Timestamp::from_millis(1500)));
        assert_eq!(parse_instant("1970-01-01T01:00:00+01:00"), Some(Timestamp::from_millis(0)));
        assert_eq!(parse_instant("yesterday"), None);
        assert_eq!(parse_instant("2026-13-01"), None);
    }
}
