//! Parsed identifiers: a value of these types is valid by construction.

use std::fmt;

use crate::error::HubError;
use crate::plans::fixed;

/// A project slug: lowercase ASCII letters, digits and inner hyphens, 1 to 64
/// characters. Slugs appear in public URLs, so they are globally unique.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slug(String);

impl Slug {
    pub const MAX_LEN: usize = 64;

    pub fn parse(raw: &str) -> Result<Self, HubError> {
        let ok = !raw.is_empty()
            && raw.len() <= Self::MAX_LEN
            && raw.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !raw.starts_with('-')
            && !raw.ends_with('-')
            && !raw.contains("--");
        if ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(HubError::validation("slug", "slug must be 1 to 64 lowercase letters, digits or single inner hyphens"))
        }
    }

    /// Derives a slug from a display name: ASCII-folded, lowercased, runs of
    /// other characters become one hyphen. Falls back to `project`.
    pub fn from_name(name: &str) -> Self {
        let mut out = String::with_capacity(name.len());
        for ch in name.chars() {
            let folded = fold_ascii(ch);
            if folded.is_ascii_alphanumeric() {
                out.push(folded.to_ascii_lowercase());
            } else if !out.ends_with('-') && !out.is_empty() {
                out.push('-');
            }
            if out.len() >= Self::MAX_LEN {
                break;
            }
        }
        let trimmed = out.trim_matches('-');
        if trimmed.is_empty() { Self("project".to_owned()) } else { Self(trimmed.to_owned()) }
    }

    /// This slug with a numeric suffix, shortened so the result still fits.
    #[must_use]
    pub fn with_suffix(&self, n: u32) -> Self {
        let suffix = format!("-{n}");
        let keep = Self::MAX_LEN.saturating_sub(suffix.len()).min(self.0.len());
        let base = self.0.get(..keep).unwrap_or(&self.0).trim_end_matches('-');
        Self(format!("{base}{suffix}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn fold_ascii(ch: char) -> char {
    match ch {
        'à'..='å' | 'À'..='Å' => 'a',
        'è'..='ë' | 'È'..='Ë' => 'e',
        'ì'..='ï' | 'Ì'..='Ï' => 'i',
        'ò'..='ö' | 'ø' | 'Ò'..='Ö' | 'Ø' => 'o',
        'ù'..='ü' | 'Ù'..='Ü' => 'u',
        'ñ' | 'Ñ' => 'n',
        'ç' | 'Ç' => 'c',
        'ß' => 's',
        other => other,
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A version label: 1 to 100 printable characters without `/`, whitespace at
/// either end, or control characters, since labels are path segments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(String);

impl Label {
    pub fn parse(raw: &str) -> Result<Self, HubError> {
        let ok = !raw.is_empty()
            && raw.chars().count() <= fixed::MAX_LABEL_CHARS
            && raw.trim() == raw
            && !raw.chars().any(|c| c == '/' || c == '\\' || c.is_control())
            && raw != "."
            && raw != "..";
        if ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(HubError::validation(
                "label",
                "label must be 1 to 100 characters without slashes, control characters or surrounding spaces",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A project name: trimmed, 1 to 200 characters, no control characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectName(String);

impl ProjectName {
    pub fn parse(raw: &str) -> Result<Self, HubError> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(HubError::validation("name", "name is required"));
        }
        if trimmed.chars().count() > fixed::MAX_PROJECT_NAME_CHARS || trimmed.chars().any(char::is_control) {
            return Err(HubError::validation("name", "name must be at most 200 characters without control characters"));
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An absolute `http` or `https` URL, as used for base URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpUrl(String);

impl HttpUrl {
    pub fn parse(field: &'static str, raw: &str) -> Result<Self, HubError> {
        let raw = raw.trim();
        let rest = raw.strip_prefix("https://").or_else(|| raw.strip_prefix("http://"));
        let host = rest.and_then(|r| r.split(['/', '?', '#']).next()).unwrap_or("");
        let ok = !host.is_empty()
            && raw.chars().count() <= 2048
            && !raw.chars().any(|c| c.is_whitespace() || c.is_control());
        if ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(HubError::validation(field, format!("{field} must be an absolute http or https URL")))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A hostname for a custom domain: lowercase labels of letters, digits and
/// hyphens, at least two labels, at most 253 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain(String);

impl Domain {
    pub fn parse(raw: &str) -> Result<Self, HubError> {
        let lower = raw.trim().trim_end_matches('.').to_ascii_lowercase();
        let labels: Vec<&str> = lower.split('.').collect();
        let ok = lower.len() <= 253
            && labels.len() >= 2
            && labels.iter().all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if ok {
            Ok(Self(lower))
        } else {
            Err(HubError::validation("custom_domain", "custom_domain must be a hostname such as docs.example.com"))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An email address, loosely checked (one `@`, something on each side).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, HubError> {
        let lower = raw.trim().to_ascii_lowercase();
        let ok = lower.len() <= 254
            && lower.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty() && domain.contains('.') && !domain.contains('@') && !domain.starts_with('.')
            })
            && !lower.chars().any(char::is_whitespace);
        if ok { Ok(Self(lower)) } else { Err(HubError::validation("email", "email must look like name@example.com")) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_derived_from_names() {
        let cases = [
            ("Petstore API", "petstore-api"),
            ("  Café  Ünïcode!! ", "cafe-unicode"),
            ("!!!", "project"),
            ("a--b", "a-b"),
            ("GitHub v3 REST", "github-v3-rest"),
        ];
        for (name, slug) in cases {
            assert_eq!(Slug::from_name(name).as_str(), slug, "{name}");
        }
        assert!(Slug::from_name(&"x".repeat(300)).as_str().len() <= Slug::MAX_LEN);
        assert_eq!(Slug::from_name(&"y".repeat(64)).with_suffix(12).as_str().len(), 64);
    }

    #[test]
    fn slug_validation() {
        for ok in ["a", "petstore", "my-api-2"] {
            assert!(Slug::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "a b", "a--b", "a/b", &"a".repeat(65)] {
            assert!(Slug::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn labels_domains_urls_emails() {
        assert!(Label::parse("v1.2.3").is_ok());
        assert!(Label::parse("2024-01-01 beta").is_ok());
        for bad in ["", " v1", "a/b", "..", "x\u{0}"] {
            assert!(Label::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Domain::parse("Docs.Example.com.").unwrap().as_str(), "docs.example.com");
        assert!(Domain::parse("localhost").is_err());
        assert!(Domain::parse("bad_domain.com").is_err());
        assert!(HttpUrl::parse("base_url", "https://api.example.com/v1").is_ok());
        assert!(HttpUrl::parse("base_url", "ftp://x").is_err());
        assert!(HttpUrl::parse("base_url", "https://").is_err());
        assert!(Email::parse("Ada@Example.com").is_ok());
        assert!(Email::parse("nope").is_err());
        assert!(ProjectName::parse("   ").is_err());
    }
}
