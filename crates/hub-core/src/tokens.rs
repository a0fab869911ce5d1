//! Personal access tokens: minting, parsing and hashing.
//!
//! A token is `svc_pat_` followed by 32 random bytes in base64url (256 bits).
//! Only its SHA-256 is stored, behind a unique index, so a lookup is one
//! indexed equality and a database leak reveals no usable credential.

use kernel::Secret;
use platform::crypto::{random_token, sha256_hex};

use crate::error::TokenRejection;

pub const PAT_PREFIX: &str = "svc_pat_";
/// Per-project upload tokens share the `svc_` family without `pat_`.
pub const UPLOAD_PREFIX: &str = "svc_";
/// Per-project MCP tokens.
pub const MCP_PREFIX: &str = "svc_mcp_";
const RANDOM_BYTES: usize = 32;
/// Characters of the plaintext kept for display (`svc_pat_` plus four).
const DISPLAY_CHARS: usize = 12;

/// A freshly minted token: the plaintext (shown once) and what is stored.
pub struct MintedToken {
    pub plaintext: Secret<String>,
    pub hash: String,
    pub display: String,
}

pub fn mint_personal_token() -> MintedToken {
    let plaintext = format!("{PAT_PREFIX}{}", random_token(RANDOM_BYTES));
    MintedToken {
        hash: sha256_hex(plaintext.as_bytes()),
        display: format!("{}…", plaintext.get(..DISPLAY_CHARS).unwrap_or(PAT_PREFIX)),
        plaintext: Secret::new(plaintext),
    }
}

/// Mints a per-project upload token: `svc_` and 32 random bytes, never
/// starting with `pat_` so the two token kinds cannot be confused.
pub fn mint_upload_token() -> MintedToken {
    loop {
        let body = random_token(RANDOM_BYTES);
        if body.starts_with("pat_") || body.starts_with("mcp_") {
            continue;
        }
        let plaintext = format!("{UPLOAD_PREFIX}{body}");
        return MintedToken {
            hash: sha256_hex(plaintext.as_bytes()),
            display: format!("{}…", plaintext.get(..8).unwrap_or(UPLOAD_PREFIX)),
            plaintext: Secret::new(plaintext),
        };
    }
}

/// Mints a per-project MCP token: `svc_mcp_` and 32 random bytes.
pub fn mint_mcp_token() -> MintedToken {
    let plaintext = format!("{MCP_PREFIX}{}", random_token(RANDOM_BYTES));
    MintedToken {
        hash: sha256_hex(plaintext.as_bytes()),
        display: format!("{}…", plaintext.get(..DISPLAY_CHARS).unwrap_or(MCP_PREFIX)),
        plaintext: Secret::new(plaintext),
    }
}

/// Whether an `Authorization` header carries an MCP token, and its hash.
pub fn hash_mcp_bearer(header: &str) -> Option<String> {
    let (scheme, token) = header.trim().split_once(' ')?;
    let token = token.trim();
    let body = token.strip_prefix(MCP_PREFIX).filter(|_| scheme.eq_ignore_ascii_case("bearer"))?;
    is_token_body(body).then(|| sha256_hex(token.as_bytes()))
}

/// The hash of a per-project upload token from an `Authorization` header.
pub fn hash_upload_bearer(header: Option<&str>) -> Result<String, TokenRejection> {
    let header = header.map(str::trim).filter(|h| !h.is_empty()).ok_or(TokenRejection::Missing)?;
    let (scheme, token) = header.split_once(' ').ok_or(TokenRejection::Malformed)?;
    let token = token.trim();
    let body = token.strip_prefix(UPLOAD_PREFIX).filter(|_| scheme.eq_ignore_ascii_case("bearer"));
    match body {
        Some(b) if !b.starts_with("pat_") && is_token_body(b) => Ok(sha256_hex(token.as_bytes())),
        _ => Err(TokenRejection::Malformed),
    }
}

fn is_token_body(body: &str) -> bool {
    body.len() == 43 && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Extracts the token from an `Authorization` header value and returns the
/// hash to look up. Only the `Bearer` scheme with a `svc_pat_` token of the
/// right shape is accepted.
pub fn hash_bearer(header: Option<&str>) -> Result<String, TokenRejection> {
    let header = header.map(str::trim).filter(|h| !h.is_empty()).ok_or(TokenRejection::Missing)?;
    let (scheme, token) = header.split_once(' ').ok_or(TokenRejection::Malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(TokenRejection::Malformed);
    }
    let token = token.trim();
    let body = token.strip_prefix(PAT_PREFIX).ok_or(TokenRejection::Malformed)?;
    if !is_token_body(body) {
        // A personal access token copied wrong (cut short, a character
        // added) is a wrong token, not another kind of credential: no such
        // token exists, as for any other that is not on record.
        return Err(TokenRejection::Unknown);
    }
    Ok(sha256_hex(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_parse_back_to_their_hash() {
        let token = mint_personal_token();
        let plaintext = token.plaintext.expose();
        assert!(plaintext.starts_with(PAT_PREFIX));
        assert_eq!(plaintext.len(), PAT_PREFIX.len() + 43, "256 bits of randomness");
        assert_eq!(hash_bearer(Some(&format!("Bearer {plaintext}"))), Ok(token.hash.clone()));
        assert_eq!(hash_bearer(Some(&format!("bearer   {plaintext}  "))), Ok(token.hash));
        assert!(token.display.starts_with("svc_pat_") && token.display.chars().count() == 13);
    }

    #[test]
    fn upload_tokens_are_a_separate_kind() {
        for _ in 0..50 {
            let token = mint_upload_token();
            let plaintext = token.plaintext.expose();
            assert!(plaintext.starts_with("svc_") && !plaintext.starts_with(PAT_PREFIX));
            assert_eq!(hash_upload_bearer(Some(&format!("Bearer {plaintext}"))), Ok(token.hash.clone()));
            assert_eq!(hash_bearer(Some(&format!("Bearer {plaintext}"))), Err(TokenRejection::Malformed));
        }
        let personal = mint_personal_token();
        let header = format!("Bearer {}", personal.plaintext.expose());
        assert_eq!(hash_upload_bearer(Some(&header)), Err(TokenRejection::Malformed));
    }

    #[test]
    fn rejections_say_why() {
        assert_eq!(hash_bearer(None), Err(TokenRejection::Missing));
        assert_eq!(hash_bearer(Some("  ")), Err(TokenRejection::Missing));
        assert_eq!(hash_bearer(Some("Basic abc")), Err(TokenRejection::Malformed));
        assert_eq!(hash_bearer(Some("Bearer")), Err(TokenRejection::Malformed));
        assert_eq!(hash_bearer(Some("Bearer svc_abc")), Err(TokenRejection::Malformed));
        // A personal access token of the wrong shape is a wrong token.
        assert_eq!(hash_bearer(Some("Bearer svc_pat_short")), Err(TokenRejection::Unknown));
        let wrong_alphabet = format!("Bearer svc_pat_{}", "!".repeat(43));
        assert_eq!(hash_bearer(Some(&wrong_alphabet)), Err(TokenRejection::Unknown));
    }
}
