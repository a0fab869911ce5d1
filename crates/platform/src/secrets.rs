//! The key that encrypts recoverable secrets at rest (webhook signing keys
//! and the like: values the service must read back, so they cannot be
//! hashed), and keys derived from it for other purposes (CSRF tokens).
//!
//! The key comes from `SVC_SECRET_KEY` (64 hex digits or 43 base64url
//! characters); without it, a key is generated into `<data dir>/secret.key`
//! on first start. Several nodes must share one key, so multi-node
//! deployments set the variable. Sealed values are XChaCha20-Poly1305 with a
//! random 24-byte nonce, written `enc:v1:<base64url(nonce || ciphertext)>`.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead as _, KeyInit as _};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use rand::RngCore as _;
use sha2::Sha256;

/// The environment variable holding the key.
pub const SECRET_KEY_ENV: &str = "SVC_SECRET_KEY";
/// The file the key is generated into when the variable is unset.
pub const SECRET_KEY_FILE: &str = "secret.key";
const PREFIX: &str = "enc:v1:";

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("{SECRET_KEY_ENV} must be 32 bytes as 64 hex digits or 43 base64url characters")]
    BadKey,
    #[error("could not read or create the secret key file {path}: {reason}")]
    File { path: String, reason: String },
    #[error("a sealed secret could not be opened (wrong {SECRET_KEY_ENV}, or the value was altered)")]
    Open,
}

/// The process's secret key. `Debug` prints nothing of it.
#[derive(Clone)]
pub struct SecretKey([u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

impl SecretKey {
    /// A key from its text form (hex or base64url).
    pub fn parse(text: &str) -> Result<Self, SecretError> {
        let text = text.trim();
        let bytes = hex::decode(text).ok().or_else(|| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok());
        bytes.and_then(|b| <[u8; 32]>::try_from(b).ok()).map(Self).ok_or(SecretError::BadKey)
    }

    /// A fresh random key (tests, and first start).
    #[must_use]
    pub fn generate() -> Self {
        let mut key = [0_u8; 32];
        rand::rng().fill_bytes(&mut key);
        Self(key)
    }

    /// `SVC_SECRET_KEY` when set; otherwise the key in `<data_dir>/secret.key`,
    /// created (mode 0600) when missing.
    pub fn load_or_create(data_dir: &Path) -> Result<Self, SecretError> {
        if let Ok(text) = std::env::var(SECRET_KEY_ENV)
            && !text.trim().is_empty()
        {
            return Self::parse(&text);
        }
        let path = data_dir.join(SECRET_KEY_FILE);
        let file_error =
            |e: std::io::Error| SecretError::File { path: path.display().to_string(), reason: e.to_string() };
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(data_dir).map_err(file_error)?;
                let key = Self::generate();
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                match options.open(&path) {
                    Ok(mut file) => {
                        std::io::Write::write_all(&mut file, hex::encode(key.0).as_bytes()).map_err(file_error)?;
                        tracing::info!(path = %path.display(), "generated a secret key; set {SECRET_KEY_ENV} to share one between nodes");
                        Ok(key)
                    }
                    // Another process created it first: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        Self::parse(&std::fs::read_to_string(&path).map_err(file_error)?)
                    }
                    Err(e) => Err(file_error(e)),
                }
            }
            Err(e) => Err(file_error(e)),
        }
    }

    /// A 32-byte key for one `purpose`, independent of the others.
    #[must_use]
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        let Ok(mut mac) = <Hmac<Sha256> as Mac>::new_from_slice(&self.0) else { return [0; 32] };
        mac.update(b"svc key derivation\0");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Encrypts `plaintext` into the `enc:v1:` form.
    #[must_use]
    pub fn seal(&self, plaintext: &str) -> String {
        let cipher = XChaCha20Poly1305::new(&self.0.into());
        let mut nonce = [0_u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        // Encryption with a valid key and nonce size cannot fail.
        let ciphertext = cipher.encrypt(XNonce::from_slice(&nonce), plaintext.as_bytes()).unwrap_or_default();
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ciphertext);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(out))
    }

    /// Decrypts a sealed value. A value without the `enc:v1:` prefix is a
    /// secret stored before encryption at rest and is returned as it is.
    pub fn open(&self, stored: &str) -> Result<String, SecretError> {
        let Some(encoded) = stored.strip_prefix(PREFIX) else { return Ok(stored.to_owned()) };
        let bytes = URL_SAFE_NO_PAD.decode(encoded).map_err(|_| SecretError::Open)?;
        let (nonce, ciphertext) = bytes.split_at_checked(24).ok_or(SecretError::Open)?;
        let cipher = XChaCha20Poly1305::new(&self.0.into());
        let plain = cipher.decrypt(XNonce::from_slice(nonce), ciphertext).map_err(|_| SecretError::Open)?;
        String::from_utf8(plain).map_err(|_| SecretError::Open)
    }

    /// Whether `stored` is in the sealed form.
    #[must_use]
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(PREFIX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_unaltered() {
        let key = SecretKey::generate();
        let sealed = key.seal("whsec_abc");
        assert!(SecretKey::is_sealed(&sealed));
        assert!(!sealed.contains("whsec_abc"));
        assert_ne!(sealed, key.seal("whsec_abc"), "a fresh nonce each time");
        assert_eq!(key.open(&sealed).unwrap(), "whsec_abc");
        assert!(SecretKey::generate().open(&sealed).is_err());
        let mut altered = sealed.clone();
        altered.pop();
        altered.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert!(key.open(&altered).is_err());
        assert_eq!(key.open("legacy plaintext").unwrap(), "legacy plaintext");
    }

    #[test]
    fn keys_parse_from_hex_and_base64url_and_file() {
        let hex_key = "00".repeat(32);
        assert!(SecretKey::parse(&hex_key).is_ok());
        assert!(SecretKey::parse(&URL_SAFE_NO_PAD.encode([7_u8; 32])).is_ok());
        assert!(matches!(SecretKey::parse("short"), Err(SecretError::BadKey)));
        let dir = tempfile::tempdir().unwrap();
        let first = SecretKey::load_or_create(dir.path()).unwrap();
        let second = SecretKey::load_or_create(dir.path()).unwrap();
        assert_eq!(first.derive("x"), second.derive("x"), "the generated key is kept");
        assert_ne!(first.derive("x"), first.derive("y"));
    }
}
