//! A wrapper that keeps secrets out of logs and debug output.

use std::fmt;

/// A value that must never be printed: `Debug` and `Display` redact it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The plaintext. Call sites are few and easy to audit.
    pub const fn expose(&self) -> &T {
        &self.0
    }

    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn debug_and_display_redact() {
        let secret = Secret::new("svc_pat_abc".to_owned());
        assert!(!format!("{secret:?}{secret}").contains("abc"));
        assert_eq!(secret.expose(), "svc_pat_abc");
    }
}
