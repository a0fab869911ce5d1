//! Small text conventions of pages: query encoding, times as people read
//! them, and where a sign-in may send the browser next.

/// `text` percent-encoded for a query string value.
#[must_use]
pub fn encode(text: &str) -> String {
    serde_urlencoded::to_string([("v", text)]).map(|s| s.trim_start_matches("v=").to_owned()).unwrap_or_default()
}

/// A timestamp as people read it: `2026-11-24 16:05 UTC`.
#[must_use]
pub fn when(at: kernel::Timestamp) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(at.as_millis())
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// Where to go after signing in: only a path on this origin under `home`,
/// otherwise `home` itself.
#[must_use]
pub fn safe_next<'a>(next: &'a str, home: &'a str) -> &'a str {
    // Only visible ASCII: a control character or a space could not be a
    // `Location` header, and anything else would be sent percent-encoded.
    let plain = next.bytes().all(|b| b.is_ascii_graphic());
    if plain && next.starts_with(home) && !next.starts_with("//") && !next.contains('\\') { next } else { home }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_under_home_are_followed_after_sign_in() {
        let next = |n| safe_next(n, "/app");
        assert_eq!(next("/app/p/books"), "/app/p/books");
        assert_eq!(next("https://evil.example/app"), "/app");
        assert_eq!(next("//evil.example"), "/app");
        assert_eq!(next("/app\\@evil"), "/app");
        assert_eq!(next("/docs/x"), "/app");
        assert_eq!(next("/app/p/x\r\nSet-Cookie: a=1"), "/app", "control characters");
        assert_eq!(next("/app/\u{7f}"), "/app");
        assert_eq!(next("/app/p/caf\u{e9}"), "/app", "unencoded non-ASCII");
        assert_eq!(next("/app/p/a%20b?x=1"), "/app/p/a%20b?x=1");
        assert_eq!(safe_next("//evil", "/"), "/");
        assert_eq!(safe_next("/courses/1", "/"), "/courses/1");
    }

    #[test]
    fn queries_are_encoded() {
        assert_eq!(encode("a b&c"), "a+b%26c");
    }
}
