//! The one place where errors become HTTP: every code, its status, and the
//! envelope of seed 002: `{"error": code, "message": text}` plus `issues`
//! (`[{code, path, message}]`) on validation failures. Codes are stable and
//! safe to branch on; messages are for people.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courses_core::{CoursesError, Issue, Suspension, Throttle};
use kernel::StoreError;
use serde_json::{Value, json};

/// Every error code the courses API answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    InvalidRequest,
    Unauthorized,
    InsufficientScope,
    /// 403: the feature needs a higher plan.
    PlanRequired,
    /// 402: the workspace is suspended (Sandbox cap or unpaid invoice).
    PaymentRequired,
    PassingScoreNotMet,
    NotCompleted,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PayloadTooLarge,
    RateLimited,
    ServiceUnavailable,
    InternalError,
    /// 403: an embed link names a learner without a valid signature.
    InvalidSignature,
}

impl Code {
    /// The registry: status and stable name of each code.
    pub const fn status_and_name(self) -> (StatusCode, &'static str) {
        match self {
            Self::InvalidRequest => (StatusCode::BAD_REQUEST, "invalid_request"),
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Self::InsufficientScope => (StatusCode::FORBIDDEN, "insufficient_scope"),
            Self::PlanRequired => (StatusCode::FORBIDDEN, "plan_required"),
            Self::PaymentRequired => (StatusCode::PAYMENT_REQUIRED, "plan_required"),
            Self::PassingScoreNotMet => (StatusCode::FORBIDDEN, "passing_score_not_met"),
            Self::NotCompleted => (StatusCode::FORBIDDEN, "not_completed"),
            Self::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            Self::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
            Self::Conflict => (StatusCode::CONFLICT, "conflict"),
            Self::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            Self::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            Self::ServiceUnavailable => (StatusCode::SERVICE_UNAVAILABLE, "service_unavailable"),
            Self::InternalError => (StatusCode::INTERNAL_SERVER_ERROR, "internal_error"),
            Self::InvalidSignature => (StatusCode::FORBIDDEN, "invalid_signature"),
        }
    }

    pub const ALL: [Self; 15] = [
        Self::InvalidRequest,
        Self::Unauthorized,
        Self::InsufficientScope,
        Self::PlanRequired,
        Self::PaymentRequired,
        Self::PassingScoreNotMet,
        Self::NotCompleted,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::Conflict,
        Self::PayloadTooLarge,
        Self::RateLimited,
        Self::ServiceUnavailable,
        Self::InternalError,
        Self::InvalidSignature,
    ];
}

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    code: Code,
    message: String,
    issues: Option<Vec<Issue>>,
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), issues: None, retry_after: None }
    }

    /// 429 `rate_limited` with `Retry-After: secs`.
    pub fn rate_limited(message: impl Into<String>, secs: u64) -> Self {
        Self { retry_after: Some(secs.max(1)), ..Self::new(Code::RateLimited, message) }
    }

    pub const fn code(&self) -> Code {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// Seconds the client should wait (429, 503).
    pub const fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    pub fn issues(&self) -> Option<&[Issue]> {
        self.issues.as_deref()
    }
}

impl From<CoursesError> for ApiError {
    fn from(err: CoursesError) -> Self {
        let message = err.to_string();
        match err {
            CoursesError::Invalid { issues, .. } => {
                Self { issues: Some(issues), ..Self::new(Code::InvalidRequest, message) }
            }
            CoursesError::Unauthorized(_) => Self::new(Code::Unauthorized, message),
            CoursesError::InsufficientScope { .. } | CoursesError::RoleRequired { .. } | CoursesError::SignupClosed => {
                Self::new(Code::InsufficientScope, message)
            }
            CoursesError::PlanRequired { .. } => Self::new(Code::PlanRequired, message),
            CoursesError::Suspended(Suspension::AllowanceUsed { .. } | Suspension::UnpaidInvoice { .. }) => {
                Self::new(Code::PaymentRequired, message)
            }
            CoursesError::NotFound { .. } => Self::new(Code::NotFound, message),
            CoursesError::RateLimited {
                retry_after_secs,
                throttle: Throttle::Requests { .. } | Throttle::Generations { .. },
            } => Self { retry_after: Some(retry_after_secs), ..Self::new(Code::RateLimited, message) },
            CoursesError::PassingScoreNotMet { .. } => Self::new(Code::PassingScoreNotMet, message),
            CoursesError::NotCompleted => Self::new(Code::NotCompleted, message),
            CoursesError::TooLarge { .. } => Self::new(Code::PayloadTooLarge, message),
            CoursesError::Conflict { .. } | CoursesError::RetryNotAllowed => Self::new(Code::Conflict, message),
            CoursesError::InvalidEmbedLink(_) => Self::new(Code::InvalidSignature, message),
            CoursesError::Store(StoreError::Busy(cause)) => {
                tracing::warn!(%cause, "store busy");
                Self {
                    retry_after: Some(1),
                    ..Self::new(Code::ServiceUnavailable, "the service is busy; retry shortly")
                }
            }
            CoursesError::Store(_) | CoursesError::Internal(_) => {
                // The cause is logged with the request id; the client gets an
                // opaque message so internals never leak.
                tracing::error!(error = %message, "internal error");
                Self::new(Code::InternalError, "internal error; retry once, then report the request id")
            }
        }
    }
}

/// The JSON body of an error (also used by tests and the OpenAPI examples).
pub fn envelope(code: Code, message: &str, issues: Option<&[Issue]>) -> Value {
    let mut body = json!({ "error": code.status_and_name().1, "message": message });
    if let (Some(issues), Value::Object(map)) = (issues, &mut body) {
        let list: Vec<Value> =
            issues.iter().map(|i| json!({ "code": i.code, "path": i.path, "message": i.message })).collect();
        map.insert("issues".to_owned(), Value::Array(list));
    }
    body
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, _) = self.code.status_and_name();
        let body = envelope(self.code, &self.message, self.issues.as_deref());
        let mut response = (status, axum::Json(body)).into_response();
        if self.code == Code::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"courses\""));
        }
        if let Some(secs) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_codes_have_their_statuses() {
        let expected = [
            (Code::InvalidRequest, 400, "invalid_request"),
            (Code::Unauthorized, 401, "unauthorized"),
            (Code::InsufficientScope, 403, "insufficient_scope"),
            (Code::PlanRequired, 403, "plan_required"),
            (Code::PaymentRequired, 402, "plan_required"),
            (Code::NotFound, 404, "not_found"),
            (Code::RateLimited, 429, "rate_limited"),
            (Code::InternalError, 500, "internal_error"),
        ];
        for (code, status, name) in expected {
            assert_eq!(code.status_and_name(), (StatusCode::from_u16(status).unwrap(), name));
        }
        let mut pairs: Vec<_> = Code::ALL.iter().map(|c| c.status_and_name()).collect();
        pairs.sort_unstable_by_key(|(s, n)| (s.as_u16(), *n));
        pairs.dedup();
        assert_eq!(pairs.len(), Code::ALL.len(), "each code is one (status, name) pair");
    }
}
