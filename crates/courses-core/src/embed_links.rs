//! Signed embed links: a link names a learner only with an HMAC over
//! (course, learner `externalId`, expiry) under the workspace's own embed
//! secret, so holding a link for one learner does not let anyone record
//! completions or earn certificates in another learner's name. A link
//! without a learner is an anonymous preview: it records nothing and
//! counts one course view per visitor per day.
//!
//! The workspace secret is 32 random bytes created on first use, stored
//! sealed with the service's secret key and never returned; the link
//! carries `learner`, `expires` (Unix seconds) and `signature` (64 hex
//! digits of HMAC-SHA256 over `courses-embed-v1`, course id, learner and
//! expiry, separated by newlines).

use std::net::IpAddr;

use serde_json::{Map, Value};

use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::model::Access;
use crate::webhooks::hmac_sha256;
use crate::{Courses, plans};

/// Purpose of the workspace secret that signs embed links.
pub const EMBED_SECRET: &str = "embed-links";
/// Lifetime of a link when the request names none.
pub const DEFAULT_TTL_SECS: i64 = 24 * 3600;
/// The longest lifetime a link may be given.
pub const MAX_TTL_SECS: i64 = 90 * 24 * 3600;
/// Learner ids are at most this many characters (as identities').
pub const MAX_LEARNER_CHARS: usize = 200;

/// The signature parameters of an embed request, as received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmbedParams {
    pub learner: Option<String>,
    pub expires: Option<String>,
    pub signature: Option<String>,
}

/// Why a link does not name its learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRejection {
    Unsigned,
    Malformed,
    Expired,
    Mismatch,
}

impl LinkRejection {
    pub const fn message(self) -> &'static str {
        match self {
            Self::Unsigned => {
                "this embed link names a learner without a signature; mint links with POST /v1/courses/{id}/embed-links"
            }
            Self::Malformed => "the embed link's expires or signature is malformed",
            Self::Expired => "the embed link has expired; mint a new one",
            Self::Mismatch => "the embed link's signature does not match its course, learner and expiry",
        }
    }
}

/// The text the signature covers.
fn signed_text(course_id: &str, learner: &str, expires: i64) -> String {
    format!("courses-embed-v1\n{course_id}\n{learner}\n{expires}")
}

/// The signature of a link (64 lowercase hex digits).
pub fn sign(key: &[u8], course_id: &str, learner: &str, expires: i64) -> String {
    hex(&hmac_sha256(key, signed_text(course_id, learner, expires).as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks a link's learner against its signature at `now_secs`: the
/// learner's external id when the link is signed for it, `None` for a
/// preview (no learner at all).
pub fn verify(
    key: &[u8],
    course_id: &str,
    params: &EmbedParams,
    now_secs: i64,
) -> Result<Option<String>, LinkRejection> {
    let Some(learner) = params.learner.as_deref().filter(|l| !l.is_empty()) else { return Ok(None) };
    let (Some(expires), Some(signature)) = (params.expires.as_deref(), params.signature.as_deref()) else {
        return Err(LinkRejection::Unsigned);
    };
    if learner.chars().count() > MAX_LEARNER_CHARS || signature.len() != 64 || expires.len() > 12 {
        return Err(LinkRejection::Malformed);
    }
    let expires: i64 = expires.parse().map_err(|_| LinkRejection::Malformed)?;
    let expected = sign(key, course_id, learner, expires);
    // Compared in constant time before the expiry, so timing tells nothing
    // about how much of a forged signature was right.
    if !platform::crypto::constant_time_eq(expected.as_bytes(), signature.to_ascii_lowercase().as_bytes()) {
        return Err(LinkRejection::Mismatch);
    }
    if expires <= now_secs {
        return Err(LinkRejection::Expired);
    }
    Ok(Some(learner.to_owned()))
}

/// A minted link.
#[derive(Clone, Debug)]
pub struct EmbedLink {
    pub course_id: String,
    pub learner: String,
    pub expires_at: kernel::Timestamp,
    pub signature: String,
    /// `/v1/embed/{course}?learner=..&expires=..&signature=..`
    pub path: String,
    /// The path after the service's public URL (`SVC_PUBLIC_URL_COURSES`,
    /// else the listen address): what a learner opens.
    pub url: String,
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn parse_mint(body: &Map<String, Value>) -> CoursesResult<(String, i64)> {
    let learner = match body.get("externalId") {
        Some(Value::String(s)) if !s.trim().is_empty() && s.trim().chars().count() <= MAX_LEARNER_CHARS => {
            s.trim().to_owned()
        }
        Some(Value::String(_)) => {
            return Err(CoursesError::field(
                &["externalId"],
                code::INVALID_VALUE,
                format!("externalId must have 1 to {MAX_LEARNER_CHARS} characters"),
            ));
        }
        Some(_) => return Err(CoursesError::field(&["externalId"], code::INVALID_TYPE, "externalId must be a string")),
        None => {
            return Err(CoursesError::field(
                &["externalId"],
                code::REQUIRED,
                "externalId (your learner's id) is required",
            ));
        }
    };
    let ttl = match body.get("expiresInSeconds") {
        None | Some(Value::Null) => DEFAULT_TTL_SECS,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(secs) if (60..=MAX_TTL_SECS).contains(&secs) => secs,
            _ => {
                return Err(CoursesError::field(
                    &["expiresInSeconds"],
                    code::INVALID_VALUE,
                    format!("expiresInSeconds must be an integer from 60 to {MAX_TTL_SECS}"),
                ));
            }
        },
        Some(_) => {
            return Err(CoursesError::field(
                &["expiresInSeconds"],
                code::INVALID_TYPE,
                "expiresInSeconds must be an integer",
            ));
        }
    };
    Ok((learner, ttl))
}

impl Courses {
    /// The workspace's embed key, created (sealed) on first use.
    pub(crate) async fn embed_key(&self, workspace_id: &str) -> CoursesResult<Vec<u8>> {
        let candidate = self.secret_key.seal(&platform::crypto::random_token(32));
        let sealed = self.store.workspace_secret(workspace_id, EMBED_SECRET, &candidate, self.clock.now()).await?;
        let key = self
            .secret_key
            .open(&sealed)
            .map_err(|e| CoursesError::Internal(format!("the workspace's embed secret could not be opened: {e}")))?;
        Ok(key.into_bytes())
    }

    /// `POST /v1/courses/{id}/embed-links`: `{externalId, expiresInSeconds}`
    /// to a link that opens the course as that learner until it expires.
    pub async fn mint_embed_link(
        &self,
        access: &Access,
        course_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<EmbedLink> {
        let (learner, ttl) = parse_mint(body)?;
        let course =
            self.store.course(&access.workspace.id, course_id).await?.ok_or(CoursesError::not_found("course"))?;
        let key = self.embed_key(&access.workspace.id).await?;
        let now_secs = self.clock.now().as_millis().div_euclid(1000);
        let expires = now_secs.saturating_add(ttl);
        let signature = sign(&key, &course.id, &learner, expires);
        let path = format!(
            "/v1/embed/{}?learner={}&expires={expires}&signature={signature}",
            encode(&course.id),
            encode(&learner)
        );
        Ok(EmbedLink {
            url: format!("{}{path}", self.members_config().public_url.trim_end_matches('/')),
            path,
            course_id: course.id,
            learner,
            expires_at: kernel::Timestamp::from_millis(expires.saturating_mul(1000)),
            signature,
        })
    }

    /// The learner a link names, checked against its signature.
    pub(crate) async fn verified_learner(
        &self,
        workspace_id: &str,
        course_id: &str,
        params: &EmbedParams,
    ) -> CoursesResult<Option<String>> {
        if params.learner.as_deref().is_none_or(str::is_empty) {
            return Ok(None);
        }
        let key = self.embed_key(workspace_id).await?;
        let now_secs = self.clock.now().as_millis().div_euclid(1000);
        verify(&key, course_id, params, now_secs).map_err(CoursesError::InvalidEmbedLink)
    }

    /// The visitor of an anonymous preview: an HMAC of the client address
    /// and the day under a key derived from the service's secret key, so
    /// the store never holds addresses and a visitor's rows cannot be
    /// linked across days.
    pub(crate) fn preview_visitor(&self, client: Option<IpAddr>, day: &str) -> String {
        let key = self.secret_key.derive("courses-embed-preview-visitor");
        let address = client.map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
        hex(&hmac_sha256(&key, format!("{day}\n{address}").as_bytes()))
    }

    /// The UTC day of `now`, `YYYY-MM-DD`.
    pub(crate) fn day_of(now: kernel::Timestamp) -> String {
        let month = plans::month_of(now);
        let day = chrono::DateTime::from_timestamp_millis(now.as_millis())
            .map_or_else(|| "01".to_owned(), |t| t.format("%d").to_string());
        format!("{month}-{day}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(learner: &str, expires: &str, signature: &str) -> EmbedParams {
        EmbedParams {
            learner: Some(learner.to_owned()),
            expires: Some(expires.to_owned()),
            signature: Some(signature.to_owned()),
        }
    }

    #[test]
    fn only_the_signed_learner_course_and_expiry_pass() {
        let key = b"0123456789abcdef0123456789abcdef";
        let good = sign(key, "crs_1", "ada", 2_000);
        assert_eq!(verify(key, "crs_1", &params("ada", "2000", &good), 1_000), Ok(Some("ada".to_owned())));
        assert_eq!(verify(key, "crs_1", &params("ada", "2000", &good.to_uppercase()), 1_000), Ok(Some("ada".into())));
        assert_eq!(verify(key, "crs_1", &params("bob", "2000", &good), 1_000), Err(LinkRejection::Mismatch));
        assert_eq!(verify(key, "crs_2", &params("ada", "2000", &good), 1_000), Err(LinkRejection::Mismatch));
        assert_eq!(verify(key, "crs_1", &params("ada", "2001", &good), 1_000), Err(LinkRejection::Mismatch));
        assert_eq!(verify(b"other", "crs_1", &params("ada", "2000", &good), 1_000), Err(LinkRejection::Mismatch));
        assert_eq!(verify(key, "crs_1", &params("ada", "2000", &good), 2_000), Err(LinkRejection::Expired));
        assert_eq!(verify(key, "crs_1", &params("ada", "x", &good), 1_000), Err(LinkRejection::Malformed));
        assert_eq!(verify(key, "crs_1", &params("ada", "2000", "abc"), 1_000), Err(LinkRejection::Malformed));
        let unsigned = EmbedParams { learner: Some("ada".into()), ..EmbedParams::default() };
        assert_eq!(verify(key, "crs_1", &unsigned, 1_000), Err(LinkRejection::Unsigned));
        assert_eq!(verify(key, "crs_1", &EmbedParams::default(), 1_000), Ok(None));
    }

    #[test]
    fn link_parameters_are_percent_encoded() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    }
}
