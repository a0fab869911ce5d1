//! The hub's domain errors. `hub-http` maps each variant to a status and a
//! stable code in one table; nothing here knows about HTTP.

use kernel::StoreError;
use platform::blobs::BlobError;

use crate::plans::{Feature, Plan};
use crate::roles::{Access, Action};

/// Why a bearer credential was refused. All variants answer 401
/// `INVALID_TOKEN`; the reason is reported in `details` to help the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRejection {
    Missing,
    Malformed,
    Unknown,
    Expired,
}

impl TokenRejection {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::Malformed => "malformed",
            Self::Unknown => "unknown",
            Self::Expired => "expired",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("{message}")]
    Validation { message: String, field: Option<&'static str> },
    #[error("the spec could not be read: {0}")]
    InvalidSpec(spec::SpecError),
    #[error("{resource} not found")]
    NotFound { resource: &'static str },
    #[error("{message}")]
    Conflict { message: String },
    /// A field named at run time (mock settings and overrides).
    #[error("{field}: {message}")]
    InvalidField { field: String, message: String },
    #[error("a project may hold at most {limit} mock overrides; delete one first")]
    MockOverrideLimit { limit: usize },
    #[error("{}", token_message(*.0))]
    InvalidToken(TokenRejection),
    #[error("your role ({}) does not allow {}", .access.as_str(), .action.as_str())]
    Forbidden { access: Access, action: Action },
    #[error("{} requires the {} plan or higher (current plan: {current})", .feature.as_str(), .feature.minimum_plan())]
    PlanRequired { feature: Feature, current: Plan },
    #[error("the {plan} plan allows {limit} projects; delete one or upgrade")]
    ProjectLimitReached { plan: Plan, limit: u32 },
    #[error(
        "the {plan} plan has {limit} collaborator seats, and pending invitations hold seats too; remove someone or upgrade"
    )]
    SeatLimitReached { plan: Plan, limit: u32 },
    #[error("the {plan} plan allows {limit} webhook inboxes; delete one or upgrade")]
    InboxLimitReached { plan: Plan, limit: u32 },
    #[error("a project may hold at most {limit} preview versions; delete one or let it expire")]
    PreviewLimitReached { limit: u32 },
    #[error("rate limit of {limit} requests per minute reached; retry in {retry_after_secs} s")]
    RateLimited { limit: u32, retry_after_secs: u64 },
    #[error("{}", quota_message(*.quota, *.limit, *.retry_after_secs))]
    QuotaExceeded { quota: crate::assistant::Quota, limit: u64, retry_after_secs: u64 },
    #[error("sign-up is closed on this hub; ask its operator for an account")]
    SignupClosed,
    #[error("the spec exceeds the {limit} byte upload limit")]
    TooLarge { limit: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Blob(#[from] BlobError),
    #[error("internal error: {0}")]
    Internal(String),
}

const fn token_message(reason: TokenRejection) -> &'static str {
    match reason {
        TokenRejection::Missing => "authentication required: send Authorization: Bearer <token>",
        TokenRejection::Malformed => "the credential is not a personal access token (they start with svc_pat_)",
        TokenRejection::Unknown => "the token is invalid or has been revoked",
        TokenRejection::Expired => "the token has expired; create a new one",
    }
}

fn quota_message(quota: crate::assistant::Quota, limit: u64, retry_after_secs: u64) -> String {
    use crate::assistant::Quota;
    let what = match quota {
        Quota::ChatTokensPerDay => format!("the docs assistant has used today's {limit} chat tokens"),
        Quota::AiSearchesPerMonth => format!("this month's {limit} AI searches are used"),
        Quota::QuestionsPerVisitorHour => format!("you have asked {limit} questions in the last hour"),
    };
    format!("{what}; try again in {}", in_words(retry_after_secs))
}

/// `45 s`, `12 min`, `5 h`, `3 days`: how long until a window resets.
fn in_words(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs.div_ceil(60)),
        3600..86_400 => format!("{} h", secs.div_ceil(3600)),
        _ => format!("{} days", secs.div_ceil(86_400)),
    }
}

impl HubError {
    pub fn validation(field: &'static str, message: impl Into<String>) -> Self {
        Self::Validation { message: message.into(), field: Some(field) }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Validation { message: message.into(), field: None }
    }

    pub const fn not_found(resource: &'static str) -> Self {
        Self::NotFound { resource }
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict { message: message.into() }
    }
}

pub type HubResult<T> = Result<T, HubError>;

impl From<platform::document_cache::Poisoned> for HubError {
    fn from(_: platform::document_cache::Poisoned) -> Self {
        Self::Internal("a cache's lock was poisoned by an earlier panic".to_owned())
    }
}
