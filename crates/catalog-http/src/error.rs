//! The one place where catalog errors become HTTP.
//!
//! Web API errors are Spotify's error object `{"error": {"status", "message"}}`,
//! with `reason` only on player errors and only from Spotify's fixed list.
//! The token endpoint answers in OAuth's own shape
//! `{"error": "invalid_grant", "error_description": "..."}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_core::{CatalogError, OAuthErrorKind, PlayerFailure};
use kernel::StoreError;
use serde_json::json;

/// Player error reasons clients know (tekore's `PlayerErrorReason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerReason {
    NoActiveDevice,
    VolumeControlDisallow,
    Unknown,
}

impl PlayerReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NoActiveDevice => "NO_ACTIVE_DEVICE",
            Self::VolumeControlDisallow => "VOLUME_CONTROL_DISALLOW",
            Self::Unknown => "UNKNOWN",
        }
    }
}

/// A Web API error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    reason: Option<PlayerReason>,
    /// `Retry-After` in whole seconds (429 and 503 only).
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), reason: None, retry_after: None }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn player(status: StatusCode, message: impl Into<String>, reason: PlayerReason) -> Self {
        Self { status, message: message.into(), reason: Some(reason), retry_after: None }
    }

    pub const fn status(&self) -> StatusCode {
        self.status
    }
}

/// The registry: every domain error's status.
impl From<CatalogError> for ApiError {
    fn from(err: CatalogError) -> Self {
        let message = err.to_string();
        match err {
            CatalogError::Invalid(_) | CatalogError::OAuth { .. } => Self::new(StatusCode::BAD_REQUEST, message),
            CatalogError::NotFound(_) => Self::new(StatusCode::NOT_FOUND, "Resource not found"),
            CatalogError::Unauthorized(_) => Self::new(StatusCode::UNAUTHORIZED, message),
            CatalogError::InsufficientScope | CatalogError::Forbidden(_) => Self::new(StatusCode::FORBIDDEN, message),
            CatalogError::Conflict(_) => Self::new(StatusCode::CONFLICT, message),
            CatalogError::Player(failure) => match failure {
                PlayerFailure::NoActiveDevice => {
                    Self::player(StatusCode::NOT_FOUND, message, PlayerReason::NoActiveDevice)
                }
                // Spotify answers an unknown device without a reason.
                PlayerFailure::DeviceNotFound => Self::new(StatusCode::NOT_FOUND, message),
                PlayerFailure::NothingLoaded => Self::player(StatusCode::FORBIDDEN, message, PlayerReason::Unknown),
                PlayerFailure::VolumeControlDisallowed => {
                    Self::player(StatusCode::FORBIDDEN, message, PlayerReason::VolumeControlDisallow)
                }
            },
            CatalogError::RateLimited { retry_after_secs } => {
                Self { retry_after: Some(retry_after_secs), ..Self::new(StatusCode::TOO_MANY_REQUESTS, message) }
            }
            CatalogError::Store(StoreError::Busy(cause)) => {
                tracing::warn!(%cause, "store busy");
                Self::new(StatusCode::SERVICE_UNAVAILABLE, "The service is busy; retry shortly")
            }
            CatalogError::Store(_) | CatalogError::Io(_) | CatalogError::Audio(_) | CatalogError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Server error; the request id identifies it in the logs")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({ "status": self.status.as_u16(), "message": self.message });
        if let (Some(reason), Some(map)) = (self.reason, error.as_object_mut()) {
            map.insert("reason".to_owned(), json!(reason.as_str()));
        }
        let mut response = (self.status, axum::Json(json!({ "error": error }))).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"catalog\", error=\"invalid_token\""),
            );
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE || self.status == StatusCode::TOO_MANY_REQUESTS {
            let seconds = self.retry_after.unwrap_or(1).max(1);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// An error of `/api/token`, in OAuth's shape.
#[derive(Debug)]
pub struct OAuthError(pub CatalogError);

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let (status, code) = match &self.0 {
            CatalogError::OAuth { kind: OAuthErrorKind::InvalidClient, .. } => {
                (StatusCode::UNAUTHORIZED, "invalid_client")
            }
            CatalogError::OAuth { kind, .. } => (StatusCode::BAD_REQUEST, kind.as_str()),
            CatalogError::Invalid(_) => (StatusCode::BAD_REQUEST, "invalid_request"),
            _ => return ApiError::from(self.0).into_response(),
        };
        (status, axum::Json(json!({ "error": code, "error_description": self.0.to_string() }))).into_response()
    }
}

impl From<CatalogError> for OAuthError {
    fn from(err: CatalogError) -> Self {
        Self(err)
    }
}
