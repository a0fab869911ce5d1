//! Extractors: the caller's token, the query string with Spotify's
//! parameter conventions, and request bodies read within a limit.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use catalog_core::ids::{ItemKind, parse_id_list};
use catalog_core::{Access, Window};

use crate::AppState;
use crate::error::ApiError;

/// The authenticated caller. A handler that takes `Auth` cannot run without
/// a valid, unexpired access token, within its app's rate limit, and with a
/// valid `market` (or `country`) when one is given; scope checks happen in
/// `Access::user`.
pub struct Auth(pub Access);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or(""));
        let query = parts.uri.query().unwrap_or("");
        let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default();
        let market = Query { path: String::new(), pairs }.market().map(str::to_owned);
        let access = state.catalog.admit(header, market.as_deref()).await?;
        // Answers sign `preview_url`s without I/O; the key is read once per process.
        state.catalog.warm_link_key().await?;
        Ok(Self(access))
    }
}

/// A listener signed in to the catalog's own listener app. Only tokens
/// issued to that first-party client may manage apps, so an app holding a
/// user's token can neither see nor mint apps in their name.
pub struct Developer(pub String);

impl FromRequestParts<AppState> for Developer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Auth(access) = Auth::from_request_parts(parts, state).await?;
        if access.client_id != catalog_core::oauth::WEB_PLAYER_CLIENT_ID {
            return Err(ApiError::new(StatusCode::FORBIDDEN, "Only the catalog's own app may manage apps"));
        }
        let user = access.user(&[])?.to_owned();
        Ok(Self(user))
    }
}

/// An operator signed in to the listener app. Anyone else is answered
/// "not found" by the use cases themselves (`catalog_core::admin`).
pub struct Operator(pub String);

impl FromRequestParts<AppState> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Developer(user) = Developer::from_request_parts(parts, state).await?;
        Ok(Self(user))
    }
}

/// The query string as name/value pairs (in order, for paging links).
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub path: String,
    pub pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(raw)
            .map_err(|_| ApiError::bad_request("the query string is not valid"))?;
        Ok(Self { path: parts.uri.path().to_owned(), pairs })
    }
}

impl Query {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.get(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| ApiError::bad_request(format!("Missing required parameter {name}")))
    }

    /// `market`, or its alias `country` (rspotify sends that).
    pub fn market(&self) -> Option<&str> {
        self.get("market").or_else(|| self.get("country"))
    }

    pub fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        self.get(name)
            .filter(|v| !v.is_empty())
            .map(|v| v.trim().parse::<i64>().map_err(|_| ApiError::bad_request(format!("Invalid {name}"))))
            .transpose()
    }

    /// `limit` (1..=max, default `default`) and `offset` (>= 0).
    pub fn window(&self, default: u32, max: u32) -> Result<Window, ApiError> {
        let limit = match self.integer("limit")? {
            None => default,
            Some(l) if l >= 1 && l <= i64::from(max) => u32::try_from(l).unwrap_or(default),
            Some(_) => return Err(ApiError::bad_request(format!("Invalid limit: must be between 1 and {max}"))),
        };
        let offset = match self.integer("offset")? {
            None => 0,
            Some(o) if o >= 0 => u64::try_from(o).unwrap_or(0),
            Some(_) => return Err(ApiError::bad_request("Invalid offset")),
        };
        Ok(Window::new(limit, offset))
    }

    pub fn ids(&self, kind: ItemKind, max: usize) -> Result<Vec<String>, ApiError> {
        Ok(parse_id_list(self.required("ids")?, kind, max)?)
    }
}

/// Parses a JSON body, treating an empty body as `{}`.
pub fn json_body(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::json!({}));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("Error parsing JSON: {e}")))
}

/// The body limit of every route that does not name its own (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = platform::http::DEFAULT_BODY_LIMIT;
/// `/authorize` and `/api/token` read their form before anyone is known:
/// a form of a few fields needs far less than the default.
pub const FORM_BODY_LIMIT: usize = 64 * 1024;
/// A playlist cover: base64 of a JPEG of at most 256 KB (4/3 of it) with
/// room for line breaks.
pub const COVER_BODY_LIMIT: usize = 360 * 1024;

/// A request body read into memory, refused with 413 as soon as it passes
/// `LIMIT` bytes (a declared `Content-Length` above it before any byte is
/// read). As the last extractor of a handler it runs after [`Auth`], so a
/// body is only read for a caller with a valid token.
#[derive(Debug)]
pub struct LimitedBody<const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub Bytes);

impl<S: Send + Sync, const LIMIT: usize> FromRequest<S> for LimitedBody<LIMIT> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = request.into_parts();
        match platform::http::read_body_limited(&parts.headers, body, LIMIT).await {
            Ok(bytes) => Ok(Self(bytes)),
            Err(platform::http::BodyError::TooLarge { limit }) => Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Request body too large: at most {limit} bytes"),
            )),
            Err(platform::http::BodyError::Read(reason)) => Err(ApiError::bad_request(reason)),
        }
    }
}
