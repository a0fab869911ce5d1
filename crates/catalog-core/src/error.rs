//! The catalog's domain errors. `catalog-http` maps each variant to a status
//! and Spotify's error object in one table; nothing here knows about HTTP.

use kernel::StoreError;

/// Why a bearer token was refused (all answer 401).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRejection {
    Missing,
    Invalid,
    Expired,
}

/// Errors of the OAuth token endpoint, in RFC 6749's vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OAuthErrorKind {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    InvalidScope,
}

impl OAuthErrorKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnauthorizedClient => "unauthorized_client",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::InvalidScope => "invalid_scope",
        }
    }
}

/// Why a player command could not be carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerFailure {
    /// No device of the user is active (or the active one went away).
    NoActiveDevice,
    /// `device_id` names no device of the user that is online.
    DeviceNotFound,
    /// Nothing is loaded to resume, skip or seek in.
    NothingLoaded,
    /// The device cannot change its volume.
    VolumeControlDisallowed,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(&'static str),
    #[error("{}", token_message(*.0))]
    Unauthorized(TokenRejection),
    #[error("Insufficient client scope")]
    InsufficientScope,
    #[error("{0}")]
    Forbidden(String),
    #[error("{message}")]
    OAuth { kind: OAuthErrorKind, message: String },
    #[error("{0}")]
    Conflict(String),
    /// Too many calls by one app; retry after this many whole seconds.
    #[error("API rate limit exceeded")]
    RateLimited { retry_after_secs: u64 },
    #[error("{}", player_message(*.0))]
    Player(PlayerFailure),
    #[error("audio could not be read: {0}")]
    Audio(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("i/o failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

const fn token_message(reason: TokenRejection) -> &'static str {
    match reason {
        TokenRejection::Missing => "No token provided",
        TokenRejection::Invalid => "Invalid access token",
        TokenRejection::Expired => "The access token expired",
    }
}

const fn player_message(failure: PlayerFailure) -> &'static str {
    match failure {
        PlayerFailure::NoActiveDevice => "Player command failed: No active device found",
        PlayerFailure::DeviceNotFound => "Device not found",
        PlayerFailure::NothingLoaded => "Player command failed: Restriction violated",
        PlayerFailure::VolumeControlDisallowed => "Player command failed: Cannot control device volume",
    }
}

impl CatalogError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }

    pub fn oauth(kind: OAuthErrorKind, message: impl Into<String>) -> Self {
        Self::OAuth { kind, message: message.into() }
    }
}

pub type CatalogResult<T> = Result<T, CatalogError>;
