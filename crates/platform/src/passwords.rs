//! Password hashing that cannot stall a server or reveal which names exist.
//!
//! argon2id takes tens of milliseconds of CPU and 19 MiB of memory by
//! design, so every hash and check runs on tokio's blocking pool behind a
//! semaphore sized to the machine's cores: a burst of sign-ins queues instead
//! of starving the async workers or the memory. A check against an unknown
//! name runs against a dummy hash, so it costs the same time as a real one.

use std::sync::{Arc, OnceLock};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("password hashing failed: {0}")]
    Hash(String),
    #[error("password task failed: {0}")]
    Task(String),
}

/// The password hasher every service shares (cheap to clone).
#[derive(Clone, Debug)]
pub struct Passwords {
    permits: Arc<tokio::sync::Semaphore>,
}

impl Default for Passwords {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Self::with_concurrency(cores)
    }
}

impl Passwords {
    /// At most `concurrency` hashes at once (at least one).
    #[must_use]
    pub fn with_concurrency(concurrency: usize) -> Self {
        Self { permits: Arc::new(tokio::sync::Semaphore::new(concurrency.max(1))) }
    }

    /// The PHC string of `password` under argon2id with a fresh salt.
    pub async fn hash(&self, password: &str) -> Result<String, PasswordError> {
        let password = password.to_owned();
        self.blocking(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `stored` (a PHC string). With no stored
    /// hash (an unknown name) it checks against a dummy hash and answers
    /// false, in the same time.
    pub async fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, PasswordError> {
        let password = password.to_owned();
        let stored = stored.map(str::to_owned);
        self.blocking(move || match stored {
            Some(stored) => verify_now(&password, &stored),
            None => {
                let _ = verify_now(&password, dummy_hash());
                false
            }
        })
        .await
    }

    async fn blocking<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, PasswordError> {
        let _permit = self.permits.acquire().await.map_err(|e| PasswordError::Task(e.to_string()))?;
        tokio::task::spawn_blocking(work).await.map_err(|e| PasswordError::Task(e.to_string()))
    }
}

/// Password length bounds, in characters. The upper bound keeps the hash's
/// input bounded; passphrases fit.
pub const MIN_PASSWORD_CHARS: usize = 10;
pub const MAX_PASSWORD_CHARS: usize = 256;

/// Why a new password is refused, as a sentence for its owner: too short,
/// too long, or among the passwords attackers try first (zxcvbn's frequency
/// lists and patterns, with `hints` such as the address as further words).
///
/// # Errors
/// The sentence, when the password is refused.
pub fn check_strength(password: &str, hints: &[&str]) -> Result<(), String> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(format!(
            "use at least {MIN_PASSWORD_CHARS} characters; a few unrelated words make a good password"
        ));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(format!("use at most {MAX_PASSWORD_CHARS} characters"));
    }
    let estimate = zxcvbn::zxcvbn(password, hints);
    if u8::from(estimate.score()) < 2 {
        let hint = estimate
            .feedback()
            .and_then(|f| f.warning().map(|w| w.to_string()))
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| "this password is among the first that attackers try".to_owned());
        return Err(format!("choose a less common password: {hint}"));
    }
    Ok(())
}

/// Hashes synchronously (for command-line tools and tests).
pub fn hash_now(password: &str) -> Result<String, PasswordError> {
    let mut salt_bytes = [0_u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut salt_bytes);
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| PasswordError::Hash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| PasswordError::Hash(e.to_string()))
}

/// Checks synchronously; an unparsable stored hash never matches.
#[must_use]
pub fn verify_now(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A real argon2id hash with the default parameters, computed once, so a
/// check against it costs what a check against a user's hash costs.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_now("dummy password for unknown names").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_unknown_names_never_match() {
        let passwords = Passwords::with_concurrency(1);
        let stored = passwords.hash("correct horse").await.unwrap();
        assert!(stored.starts_with("$argon2id$"));
        assert!(passwords.verify("correct horse", Some(&stored)).await.unwrap());
        assert!(!passwords.verify("wrong", Some(&stored)).await.unwrap());
        assert!(!passwords.verify("dummy password for unknown names", None).await.unwrap());
        assert!(!passwords.verify("x", Some("not a phc string")).await.unwrap());
    }

    #[test]
    fn the_dummy_is_a_real_argon2id_hash() {
        // Checking against it runs the full argon2id work, like a real user's.
        assert!(dummy_hash().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{}", dummy_hash());
    }
}
