//! The courses service's domain errors. `courses-http` maps each variant to a
//! status and a stable code in one table; nothing here knows about HTTP.

use kernel::{StoreError, Timestamp};

use crate::issues::Issue;
use crate::plans::{Feature, Plan};

/// Why an API key was refused. All answer 401 `unauthorized`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRejection {
    Missing,
    Malformed,
    Unknown,
    Revoked,
}

/// Why a workspace is suspended (402).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Suspension {
    /// A Sandbox workspace used its monthly course views.
    AllowanceUsed { plan: Plan, allowance: u64, month: String, resets_at: Timestamp },
    /// A failed charge whose grace period ended.
    UnpaidInvoice { failed_at: Timestamp, grace_ended_at: Timestamp },
}

/// Why a request is throttled (429).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Throttle {
    /// More than the per-key requests in the rolling window.
    Requests { limit: u32, window_secs: u32 },
    /// The monthly AI generation allowance is used.
    Generations { plan: Plan, allowance: u64, month: String },
}

#[derive(Debug, thiserror::Error)]
pub enum CoursesError {
    #[error("{message}")]
    Invalid { message: String, issues: Vec<Issue> },
    #[error("{}", key_message(*.0))]
    Unauthorized(KeyRejection),
    #[error("this API key is read-only; a key with write access is required for {method} requests")]
    InsufficientScope { method: String },
    /// A member of the workspace whose role does not allow the action.
    #[error("your role in this workspace ({role}) does not allow this; {needed}")]
    RoleRequired { role: crate::members::Role, needed: &'static str },
    #[error("{} requires the {} plan or higher (current plan: {current})", .feature.as_str(), .feature.minimum_plan())]
    PlanRequired { feature: Feature, current: Plan },
    #[error("{}", suspension_message(.0))]
    Suspended(Suspension),
    #[error("sign-up is closed on this server: ask a workspace owner for an invitation")]
    SignupClosed,
    #[error("{resource} not found")]
    NotFound { resource: &'static str },
    #[error("{}", throttle_message(.throttle))]
    RateLimited { throttle: Throttle, retry_after_secs: u64 },
    #[error("the learner's best score ({}) does not meet the course's passing score of {passing}", score_text(*.score))]
    PassingScoreNotMet { score: Option<f64>, passing: i64 },
    #[error("the learner has not completed this course")]
    NotCompleted,
    /// A second attempt at a course whose `retry` setting is `never`.
    #[error("this course allows one attempt, and the learner has already completed it")]
    RetryNotAllowed,
    #[error("{what} exceeds the {limit} byte limit")]
    TooLarge { what: &'static str, limit: u64 },
    #[error("{message}")]
    Conflict { message: String },
    /// An embed link that names a learner without a valid signature.
    #[error("{}", .0.message())]
    InvalidEmbedLink(crate::embed_links::LinkRejection),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("internal error: {0}")]
    Internal(String),
}

fn score_text(score: Option<f64>) -> String {
    score.map_or_else(|| "none".to_owned(), |s| format!("{s}"))
}

const fn key_message(reason: KeyRejection) -> &'static str {
    match reason {
        KeyRejection::Missing => "authentication required: send Authorization: Bearer <API_KEY>",
        KeyRejection::Malformed => "the credential is not an API key of this service (they start with sk_live_)",
        KeyRejection::Unknown => "the API key is invalid",
        KeyRejection::Revoked => "the API key has been revoked",
    }
}

fn suspension_message(suspension: &Suspension) -> String {
    match suspension {
        Suspension::AllowanceUsed { plan, allowance, month, resets_at } => format!(
            "the {plan} plan's monthly allowance of {allowance} course views is used for {month}; \
             the cap clears at {resets_at} or when the workspace upgrades"
        ),
        Suspension::UnpaidInvoice { failed_at, grace_ended_at } => format!(
            "an invoice is unpaid: the charge failed at {failed_at} and the grace period ended at {grace_ended_at}; \
             service resumes when the invoice is paid"
        ),
    }
}

fn throttle_message(throttle: &Throttle) -> String {
    match throttle {
        Throttle::Requests { limit, window_secs } => {
            format!("more than {limit} requests in {window_secs} seconds with this API key; retry after the delay")
        }
        Throttle::Generations { plan, allowance, month } => {
            format!("the {plan} plan's {allowance} AI generations for {month} are used; retry next month or upgrade")
        }
    }
}

impl CoursesError {
    pub const fn not_found(resource: &'static str) -> Self {
        Self::NotFound { resource }
    }

    pub fn invalid(issues: Vec<Issue>) -> Self {
        let message = match issues.as_slice() {
            [only] => format!("{}: {}", only.path_text(), only.message),
            [] => "the request is not valid".to_owned(),
            [first, rest @ ..] => format!("{}: {} (and {} more)", first.path_text(), first.message, rest.len()),
        };
        Self::Invalid { message, issues }
    }

    /// A single validation issue at `path`.
    pub fn field(path: &[&str], code: &'static str, message: impl Into<String>) -> Self {
        Self::invalid(vec![Issue::new(code, path.iter().map(|s| (*s).to_owned()).collect(), message)])
    }
}

pub type CoursesResult<T> = Result<T, CoursesError>;
