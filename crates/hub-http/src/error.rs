//! The one place where errors become HTTP: every code, its status and the
//! shape of its `details`.
//!
//! Envelope: `{"error": {"code": "...", "message": "...", "details": {...}}}`.
//! Codes are stable across releases; messages may change.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::{HubError, TokenRejection};
use kernel::StoreError;
use serde_json::{Value, json};

/// Every error code the hub's API answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    ValidationError,
    InvalidToken,
    PlanRequired,
    ProjectLimitReached,
    SeatLimitReached,
    InboxLimitReached,
    AuthenticationRequired,
    SignatureInvalid,
    AddressNotAllowed,
    CaptureLimitReached,
    InboxPaused,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PreviewLimitReached,
    MockOverrideLimitReached,
    PasswordRequired,
    PayloadTooLarge,
    RateLimited,
    QuotaExceeded,
    ServiceUnavailable,
    InternalError,
}

impl Code {
    /// The registry: status and stable name of each code.
    pub const fn status_and_name(self) -> (StatusCode, &'static str) {
        match self {
            Self::ValidationError => (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"),
            Self::InvalidToken => (StatusCode::UNAUTHORIZED, "INVALID_TOKEN"),
            Self::PlanRequired => (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED"),
            Self::ProjectLimitReached => (StatusCode::PAYMENT_REQUIRED, "PROJECT_LIMIT_REACHED"),
            Self::SeatLimitReached => (StatusCode::PAYMENT_REQUIRED, "SEAT_LIMIT_REACHED"),
            Self::InboxLimitReached => (StatusCode::PAYMENT_REQUIRED, "INBOX_LIMIT_REACHED"),
            Self::AuthenticationRequired => (StatusCode::UNAUTHORIZED, "AUTHENTICATION_REQUIRED"),
            Self::SignatureInvalid => (StatusCode::UNAUTHORIZED, "SIGNATURE_INVALID"),
            Self::AddressNotAllowed => (StatusCode::FORBIDDEN, "ADDRESS_NOT_ALLOWED"),
            Self::CaptureLimitReached => (StatusCode::TOO_MANY_REQUESTS, "CAPTURE_LIMIT_REACHED"),
            Self::InboxPaused => (StatusCode::SERVICE_UNAVAILABLE, "INBOX_PAUSED"),
            Self::Forbidden => (StatusCode::FORBIDDEN, "FORBIDDEN"),
            Self::NotFound => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            Self::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED"),
            Self::Conflict => (StatusCode::CONFLICT, "CONFLICT"),
            Self::PreviewLimitReached => (StatusCode::CONFLICT, "PREVIEW_LIMIT_REACHED"),
            Self::MockOverrideLimitReached => (StatusCode::CONFLICT, "MOCK_OVERRIDE_LIMIT_REACHED"),
            Self::PasswordRequired => (StatusCode::UNAUTHORIZED, "PASSWORD_REQUIRED"),
            Self::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"),
            Self::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED"),
            Self::QuotaExceeded => (StatusCode::TOO_MANY_REQUESTS, "QUOTA_EXCEEDED"),
            Self::ServiceUnavailable => (StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE"),
            Self::InternalError => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR"),
        }
    }
}

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    code: Code,
    message: String,
    details: Option<Value>,
    retry_after_secs: Option<u64>,
}

impl ApiError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: None, retry_after_secs: None }
    }

    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// A 400 naming the offending field.
    /// The same error with a more specific message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self::new(Code::ValidationError, message).with_details(json!({ "field": field }))
    }

    #[must_use]
    pub const fn with_retry_after(mut self, secs: u64) -> Self {
        self.retry_after_secs = Some(secs);
        self
    }

    pub const fn code(&self) -> Code {
        self.code
    }
}

impl From<platform::document_cache::Poisoned> for ApiError {
    fn from(_: platform::document_cache::Poisoned) -> Self {
        Self::from(HubError::Internal("document cache lock poisoned".into()))
    }
}

impl From<HubError> for ApiError {
    fn from(err: HubError) -> Self {
        let message = err.to_string();
        match err {
            HubError::Validation { field: Some(field), .. } => Self::field(field, message),
            HubError::Validation { field: None, .. } => Self::new(Code::ValidationError, message),
            HubError::InvalidSpec(spec_err) => {
                let mut details = json!({ "field": "body", "kind": spec_err.kind.as_str() });
                if let (Some(line), Value::Object(map)) = (spec_err.line, &mut details) {
                    map.insert("line".to_owned(), json!(line));
                    map.insert("column".to_owned(), json!(spec_err.column));
                }
                Self::new(Code::ValidationError, message).with_details(details)
            }
            HubError::NotFound { .. } => Self::new(Code::NotFound, message),
            HubError::Conflict { .. } => Self::new(Code::Conflict, message),
            HubError::InvalidField { field, .. } => Self::field(&field, message),
            HubError::MockOverrideLimit { limit } => {
                Self::new(Code::MockOverrideLimitReached, message).with_details(json!({ "limit": limit }))
            }
            HubError::InvalidToken(reason) => {
                Self::new(Code::InvalidToken, message).with_details(json!({ "reason": reason.as_str() }))
            }
            HubError::Forbidden { access, action } => Self::new(Code::Forbidden, message)
                .with_details(json!({ "role": access.as_str(), "action": action.as_str() })),
            HubError::PlanRequired { feature, current } => Self::new(Code::PlanRequired, message).with_details(json!({
                "feature": feature.as_str(),
                "required_plan": feature.minimum_plan().as_str(),
                "current_plan": current.as_str(),
            })),
            HubError::ProjectLimitReached { plan, limit } => Self::new(Code::ProjectLimitReached, message)
                .with_details(json!({ "plan": plan.as_str(), "limit": limit })),
            HubError::SeatLimitReached { plan, limit } => Self::new(Code::SeatLimitReached, message)
                .with_details(json!({ "plan": plan.as_str(), "seats": limit })),
            HubError::InboxLimitReached { plan, limit } => Self::new(Code::InboxLimitReached, message)
                .with_details(json!({ "plan": plan.as_str(), "limit": limit })),
            HubError::PreviewLimitReached { limit } => {
                Self::new(Code::PreviewLimitReached, message).with_details(json!({ "limit": limit }))
            }
            HubError::RateLimited { limit, retry_after_secs } => Self {
                retry_after_secs: Some(retry_after_secs),
                ..Self::new(Code::RateLimited, message).with_details(json!({ "limit_per_minute": limit }))
            },
            HubError::QuotaExceeded { quota, limit, retry_after_secs } => Self {
                retry_after_secs: Some(retry_after_secs),
                ..Self::new(Code::QuotaExceeded, message).with_details(json!({
                    "quota": quota.as_str(),
                    "limit": limit,
                    "retry_after_secs": retry_after_secs,
                }))
            },
            HubError::SignupClosed => Self::new(Code::Forbidden, message),
            HubError::TooLarge { limit } => {
                Self::new(Code::PayloadTooLarge, message).with_details(json!({ "limit_bytes": limit }))
            }
            HubError::Store(StoreError::Busy(cause)) => {
                tracing::warn!(%cause, "store busy");
                Self::new(Code::ServiceUnavailable, "the service is busy; retry shortly")
            }
            HubError::Store(_) | HubError::Blob(_) | HubError::Internal(_) => {
                // The cause is logged with the request id; the client gets an
                // opaque message so internals never leak.
                tracing::error!(error = %message, "internal error");
                Self::new(Code::InternalError, "internal error; the request id identifies it in the server logs")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, name) = self.code.status_and_name();
        let mut error = json!({ "code": name, "message": self.message });
        if let (Some(details), Value::Object(map)) = (self.details, &mut error) {
            map.insert("details".to_owned(), details);
        }
        let mut response = (status, axum::Json(json!({ "error": error }))).into_response();
        if self.code == Code::InvalidToken {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"hub\""));
        }
        if self.code == Code::AuthenticationRequired {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"webhook inbox\", charset=\"UTF-8\""),
            );
        }
        let retry_after = match self.code {
            Code::ServiceUnavailable => Some(1),
            _ => self.retry_after_secs,
        };
        if let Some(secs) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

impl ApiError {
    /// The same error as a small HTML page, for the docs routes that browsers
    /// open (same status; a password-protected project shows its login form).
    pub fn into_html_response(self) -> Response {
        self.into_html_response_with_csrf(None)
    }

    /// [`ApiError::into_html_response`]; a password form on the page carries
    /// `csrf_token`.
    pub fn into_html_response_with_csrf(self, csrf_token: Option<&str>) -> Response {
        let (status, name) = self.code.status_and_name();
        let title = match self.code {
            Code::NotFound => "Not found",
            Code::PasswordRequired => "Password required",
            Code::RateLimited | Code::QuotaExceeded => "Too many requests",
            Code::ServiceUnavailable => "Busy",
            Code::InternalError => "Something went wrong",
            _ => name,
        };
        let login = self.details.as_ref().and_then(|d| d.get("login_action")).and_then(Value::as_str);
        let signin = self.details.as_ref().and_then(|d| d.get("signin")).and_then(Value::as_str);
        let page =
            docs_render::message_page_with_signin(title, &self.message, login, None, signin, csrf_token.unwrap_or(""));
        let mut response = (status, page).into_response();
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let Some(secs) = self.retry_after_secs
            && let Ok(value) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// Shortcut for reason-less 401s raised outside the core (cron secrets).
pub fn unauthorized() -> ApiError {
    ApiError::from(HubError::InvalidToken(TokenRejection::Unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_distinct_name() {
        let all = [
            Code::ValidationError,
            Code::InvalidToken,
            Code::PlanRequired,
            Code::ProjectLimitReached,
            Code::SeatLimitReached,
            Code::Forbidden,
            Code::NotFound,
            Code::MethodNotAllowed,
            Code::Conflict,
            Code::PreviewLimitReached,
            Code::PayloadTooLarge,
            Code::RateLimited,
            Code::QuotaExceeded,
            Code::ServiceUnavailable,
            Code::InternalError,
        ];
        let mut names: Vec<_> = all.iter().map(|c| c.status_and_name().1).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }
}
