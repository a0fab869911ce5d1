//! Workspace API keys: minting, parsing and hashing.
//!
//! A key is `sk_live_` followed by 32 random bytes in base64url (256 bits).
//! Only its SHA-256 is stored, behind a unique index, so a lookup is one
//! indexed equality and a database leak reveals no usable credential.

use kernel::Secret;
use platform::crypto::{random_token, sha256_hex};

use crate::error::KeyRejection;

pub const KEY_PREFIX: &str = "sk_live_";
const RANDOM_BYTES: usize = 32;
const ENCODED_LEN: usize = 43;

/// A freshly minted key: the plaintext (shown once) and what is stored.
pub struct MintedKey {
    pub plaintext: Secret<String>,
    pub hash: String,
    pub display: String,
}

pub fn mint_key() -> MintedKey {
    let plaintext = format!("{KEY_PREFIX}{}", random_token(RANDOM_BYTES));
    let tail = plaintext.get(plaintext.len().saturating_sub(4)..).unwrap_or_default();
    MintedKey {
        hash: sha256_hex(plaintext.as_bytes()),
        display: format!("{KEY_PREFIX}…{tail}"),
        plaintext: Secret::new(plaintext),
    }
}

/// Extracts the key from an `Authorization` header value and returns the
/// hash to look up.
pub fn hash_bearer(header: Option<&str>) -> Result<String, KeyRejection> {
    let header = header.map(str::trim).filter(|h| !h.is_empty()).ok_or(KeyRejection::Missing)?;
    let (scheme, key) = header.split_once(' ').ok_or(KeyRejection::Malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(KeyRejection::Malformed);
    }
    let key = key.trim();
    let body = key.strip_prefix(KEY_PREFIX).ok_or(KeyRejection::Malformed)?;
    let well_formed =
        body.len() == ENCODED_LEN && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return Err(KeyRejection::Malformed);
    }
    Ok(sha256_hex(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_keys_parse_back_to_their_hash() {
        let key = mint_key();
        let plaintext = key.plaintext.expose();
        assert!(plaintext.starts_with(KEY_PREFIX));
        assert_eq!(hash_bearer(Some(&format!("Bearer {plaintext}"))), Ok(key.hash.clone()));
        assert_eq!(hash_bearer(Some(&format!("bearer  {plaintext} "))), Ok(key.hash));
        assert!(!key.display.contains(&plaintext[8..40]));
    }

    #[test]
    fn rejections_say_why() {
        assert_eq!(hash_bearer(None), Err(KeyRejection::Missing));
        assert_eq!(hash_bearer(Some("Basic abc")), Err(KeyRejection::Malformed));
        assert_eq!(hash_bearer(Some("Bearer sk_live_short")), Err(KeyRejection::Malformed));
        assert_eq!(hash_bearer(Some("Bearer")), Err(KeyRejection::Malformed));
    }
}
