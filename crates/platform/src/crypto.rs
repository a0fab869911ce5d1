//! Hashing, random secrets and constant-time comparison.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// Lowercase hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// `bytes` bytes from the operating system's CSPRNG, base64url without padding.
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0_u8; bytes];
    // ThreadRng is a ChaCha CSPRNG seeded and periodically reseeded from the OS.
    rand::rng().fill_bytes(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// Compares two byte strings in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_known_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn random_tokens_have_the_requested_entropy_and_differ() {
        let a = random_token(32);
        let b = random_token(32);
        assert_eq!(a.len(), 43, "32 bytes are 43 base64url characters");
        assert_ne!(a, b);
    }

    #[test]
    fn constant_time_eq_compares_content() {
        assert!(constant_time_eq(b"same", b"same"));
        assert!(!constant_time_eq(b"same", b"diff"));
        assert!(!constant_time_eq(b"short", b"longer"));
    }
}
