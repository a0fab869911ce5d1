//! Extractors that answer in the service's error envelope. A handler that
//! takes a [`Caller`] cannot run without a valid, rate-checked key whose
//! scope allows the request's method, on a workspace in good standing.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use courses_core::Access;
use courses_core::courses::ListRequest;
use serde_json::{Map, Value};

use crate::AppState;
use crate::error::{ApiError, Code};

/// JSON bodies above this many bytes answer 413 (the platform's default of
/// every route that does not document its own).
pub const JSON_BODY_LIMIT: usize = platform::http::DEFAULT_BODY_LIMIT;
/// Course CSV imports: 2,000 data rows of up to about 4 KiB each.
pub const CSV_BODY_LIMIT: usize = 8 * 1024 * 1024;

pub struct Caller(pub Access);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
        Ok(Self(state.courses.authorize(header, parts.method.as_str()).await?))
    }
}

/// The client of a public embed request (the peer, or the address a
/// trusted proxy names), counted against the embed's per-address limit
/// (429 `rate_limited` with `Retry-After`). `None` when the request carries
/// no peer address (in-process calls), which are not limited.
pub struct EmbedClient(pub Option<std::net::IpAddr>);

impl FromRequestParts<AppState> for EmbedClient {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|axum::extract::ConnectInfo(addr)| addr.ip());
        let client = platform::net::client_ip(&state.proxies, peer, &parts.headers);
        if let Some(ip) = client {
            state.embed_throttle.check(&ip).await.map_err(|wait| {
                ApiError::rate_limited(
                    format!(
                        "over {} embed requests per minute from this address; retry in {} s",
                        wait.per_minute, wait.secs
                    ),
                    wait.secs,
                )
            })?;
        }
        Ok(Self(client))
    }
}

/// A JSON object body (unknown fields included: the core decides what they mean).
pub struct JsonBody(pub Map<String, Value>);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = req.into_parts();
        let bytes = read(&parts.headers, body).await?;
        parse_object(&bytes).map(Self)
    }
}

/// A course CSV body, up to [`CSV_BODY_LIMIT`] bytes.
pub struct CsvBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for CsvBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = req.into_parts();
        read_limited(&parts.headers, body, CSV_BODY_LIMIT).await.map(Self)
    }
}

/// Reads a SCORM package body (up to 100 MB, else 413).
/// The handler reads it after the plan gate, so a workspace below the plan
/// is refused before up to 100 MB are read.
pub async fn read_package(headers: &axum::http::HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let limit = courses_core::scorm_import::MAX_PACKAGE_BYTES;
    platform::http::read_body_limited(headers, body, limit).await.map_err(|err| match err {
        platform::http::BodyError::TooLarge { limit } => {
            ApiError::new(Code::PayloadTooLarge, format!("the SCORM package exceeds {limit} bytes (100 MB)"))
        }
        platform::http::BodyError::Read(e) => {
            ApiError::new(Code::InvalidRequest, format!("could not read the body: {e}"))
        }
    })
}

async fn read(headers: &axum::http::HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    read_limited(headers, body, JSON_BODY_LIMIT).await
}

/// Reads a body while streaming, refusing it (413) as soon as it passes
/// `limit` bytes, or at once when its declared length does.
pub async fn read_limited(headers: &axum::http::HeaderMap, body: Body, limit: usize) -> Result<Bytes, ApiError> {
    platform::http::read_body_limited(headers, body, limit).await.map_err(|err| match err {
        platform::http::BodyError::TooLarge { limit } => {
            ApiError::new(Code::PayloadTooLarge, format!("the request body exceeds {limit} bytes"))
        }
        platform::http::BodyError::Read(e) => {
            ApiError::new(Code::InvalidRequest, format!("could not read the body: {e}"))
        }
    })
}

pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(mut map)) => {
            map.values_mut().for_each(integral_numbers);
            Ok(map)
        }
        Ok(_) => Err(courses_core::CoursesError::field(&[], "invalid_type", "the body must be a JSON object").into()),
        Err(e) => {
            Err(courses_core::CoursesError::field(&[], "invalid_json", format!("the body is not valid JSON: {e}"))
                .into())
        }
    }
}

/// Rewrites numbers without a fractional part (`5.0`, `1e2`) as integers,
/// as JSON Schema counts them: a field documented as an integer accepts
/// them. Depth is bounded by the JSON parser's own recursion limit.
fn integral_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9.0e15
            {
                #[expect(clippy::cast_possible_truncation, reason = "an integral value below 2^53 converts exactly")]
                let int = f as i64;
                *value = Value::from(int);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        Value::Object(map) => map.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// `limit` (default 50, no maximum) and `offset` from the query string.
pub struct Paging(pub ListRequest);

impl<S: Send + Sync> FromRequestParts<S> for Paging {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(parts.uri.query().unwrap_or("")).unwrap_or_default();
        let get = |name: &str| -> Result<Option<u64>, ApiError> {
            pairs
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| {
                    v.trim().parse::<u64>().ok().filter(|n| i64::try_from(*n).is_ok()).ok_or_else(|| {
                        ApiError::from(courses_core::CoursesError::field(
                            &[name],
                            "invalid_type",
                            format!("{name} must be an integer from 0 to {}", i64::MAX),
                        ))
                    })
                })
                .transpose()
        };
        let limit = get("limit")?;
        if limit == Some(0) {
            return Err(courses_core::CoursesError::field(&["limit"], "too_small", "limit must be at least 1").into());
        }
        Ok(Self(ListRequest::new(limit, get("offset")?)))
    }
}

/// One query parameter, for the public embed.
pub fn query_param(parts_query: Option<&str>, name: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(parts_query.unwrap_or("")).unwrap_or_default();
    pairs.into_iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
}
