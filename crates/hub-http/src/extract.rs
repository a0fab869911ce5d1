//! Request extractors that answer in the hub's error envelope.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use hub_core::Principal;
use serde_json::{Map, Value};

use crate::AppState;
use crate::error::ApiError;

/// The authenticated caller. A handler that takes a `Caller` cannot run
/// without a valid personal access token.
pub struct Caller(pub Principal);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
        Ok(Self(state.hub.authenticate(header).await?))
    }
}

impl OptionalFromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Option<Self>, Self::Rejection> {
        if parts.headers.contains_key(AUTHORIZATION) {
            <Self as FromRequestParts<AppState>>::from_request_parts(parts, state).await.map(Some)
        } else {
            Ok(None)
        }
    }
}

/// The query string as name/value pairs, with typed accessors whose errors
/// name the parameter. Unknown parameters are ignored.
pub struct QueryParams(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        serde_urlencoded::from_str::<Vec<(String, String)>>(raw)
            .map(Self)
            .map_err(|_| ApiError::new(crate::error::Code::ValidationError, "the query string is not valid"))
    }
}

impl QueryParams {
    #[cfg(test)]
    fn of(pairs: &[(&str, &str)]) -> Self {
        Self(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    /// The last value of `name` (later values override earlier ones).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// An integer; one too large for 64 bits saturates (a limit of 10^30
    /// is clamped like any other large limit, not refused).
    pub fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        self.get(name)
            .map(|v| {
                saturating_integer(v.trim()).ok_or_else(|| ApiError::field(name, format!("{name} must be an integer")))
            })
            .transpose()
    }

    pub fn non_negative(&self, name: &str) -> Result<Option<u64>, ApiError> {
        self.get(name)
            .map(|v| {
                saturating_integer(v.trim())
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| ApiError::field(name, format!("{name} must be a non-negative integer")))
            })
            .transpose()
    }

    pub fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        self.get(name)
            .map(|v| match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(ApiError::field(name, format!("{name} must be true or false"))),
            })
            .transpose()
    }

    pub fn page(&self) -> Result<kernel::PageRequest, ApiError> {
        Ok(kernel::PageRequest::clamped(self.integer("limit")?, self.non_negative("offset")?))
    }
}

/// A decimal integer (optional sign, digits only), saturated to 64 bits.
fn saturating_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse::<i64>().unwrap_or(if negative { i64::MIN } else { i64::MAX }))
}

/// A JSON object body with typed accessors whose errors name the field, and
/// a check that refuses fields the route does not know (typos should fail
/// loudly, not be ignored).
pub struct JsonObject(Map<String, Value>);

/// As an extractor it reads the body within [`platform::http::DEFAULT_BODY_LIMIT`]
/// (refusing a larger declared length before reading, and a longer stream
/// as soon as it passes), answering `PAYLOAD_TOO_LARGE` in the envelope.
/// Extractors before it (the caller's token) run first, so an anonymous
/// client cannot make the server read a large body.
impl<S: Send + Sync> axum::extract::FromRequest<S> for JsonObject {
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, _state: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = request.into_parts();
        match read_json(&parts.headers, body, platform::http::DEFAULT_BODY_LIMIT).await? {
            Value::Object(map) => Ok(Self(map)),
            _ => Err(ApiError::field("body", "the body must be a JSON object")),
        }
    }
}

/// Reads a body within `limit` bytes (refusing a larger declared length
/// before reading, and a longer stream as soon as it passes): the one place
/// where body errors become envelopes.
pub(crate) async fn read_limited(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    limit: usize,
) -> Result<bytes::Bytes, ApiError> {
    platform::http::read_body_limited(headers, body, limit).await.map_err(|e| match e {
        platform::http::BodyError::TooLarge { limit } => {
            ApiError::new(crate::error::Code::PayloadTooLarge, format!("the body is larger than {limit} bytes"))
        }
        platform::http::BodyError::Read(cause) => {
            ApiError::new(crate::error::Code::ValidationError, format!("could not read the body: {cause}"))
        }
    })
}

/// Reads a JSON body within `limit` bytes (see [`read_limited`]).
pub(crate) async fn read_json(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    limit: usize,
) -> Result<Value, ApiError> {
    parse_json(&read_limited(headers, body, limit).await?)
}

fn parse_json(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(crate::error::Code::ValidationError, format!("the body is not valid JSON: {e}"))
            .with_details(serde_json::json!({ "field": "body", "line": e.line(), "column": e.column() }))
    })
}

impl JsonObject {
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        match parse_json(body)? {
            Value::Object(map) => Ok(Self(map)),
            _ => Err(ApiError::field("body", "the body must be a JSON object")),
        }
    }

    /// The object as a typed body; serde's message names the field that
    /// does not fit.
    pub fn deserialize<T: serde::de::DeserializeOwned>(self) -> Result<T, ApiError> {
        serde_json::from_value(Value::Object(self.0)).map_err(|e| ApiError::field("body", e.to_string()))
    }

    /// The object as a JSON value.
    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// The raw value of a field.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    pub fn only(&self, allowed: &[&str]) -> Result<(), ApiError> {
        match self.0.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(unknown) => Err(ApiError::field(
                unknown,
                format!("unknown field {unknown:?}; allowed fields: {}", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }

    pub fn string(&self, name: &str) -> Result<Option<String>, ApiError> {
        match self.0.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ApiError::field(name, format!("{name} must be a string"))),
        }
    }

    /// Absent: `None`; `null`: `Some(None)`; a string: `Some(Some(..))`.
    pub fn nullable_string(&self, name: &str) -> Result<Option<Option<String>>, ApiError> {
        match self.0.get(name) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(Some(None)),
            Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
            Some(_) => Err(ApiError::field(name, format!("{name} must be a string or null"))),
        }
    }

    pub fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.0.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ApiError::field(name, format!("{name} must be true or false"))),
        }
    }

    /// An integer field (a JSON number without a fraction).
    pub fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.0.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                n.as_i64().map(Some).ok_or_else(|| ApiError::field(name, format!("{name} must be a whole number")))
            }
            Some(_) => Err(ApiError::field(name, format!("{name} must be a whole number"))),
        }
    }

    /// A collaborator role: `editor`, `viewer` or `none`.
    pub fn role(&self, name: &str) -> Result<Option<hub_core::Role>, ApiError> {
        self.string(name)?
            .map(|r| r.parse().map_err(|_| ApiError::field(name, format!("{name} is one of editor, viewer, none"))))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_saturate_and_garbage_is_refused() {
        let query = QueryParams::of(&[
            ("a", "100000000000000000000000"),
            ("b", "-99999999999999999999"),
            ("c", "1.5"),
            ("d", "+7"),
            ("e", "-"),
        ]);
        assert_eq!(query.integer("a").ok().flatten(), Some(i64::MAX));
        assert_eq!(query.integer("b").ok().flatten(), Some(i64::MIN));
        assert!(query.integer("c").is_err() && query.integer("e").is_err());
        assert_eq!(query.non_negative("d").ok().flatten(), Some(7));
        assert!(query.non_negative("b").is_err());
        assert_eq!(query.non_negative("a").ok().flatten(), Some(i64::MAX as u64));
    }
}
