//! OAuth scopes, as Spotify names them, and the set a token carries.

use std::collections::BTreeSet;

use crate::error::{CatalogError, OAuthErrorKind};

/// Every scope a client may request (Spotify's list of 19 plus none else).
pub const ALL_SCOPES: &[&str] = &[
    "ugc-image-upload",
    "user-read-playback-state",
    "user-modify-playback-state",
    "user-read-currently-playing",
    "app-remote-control",
    "streaming",
    "playlist-read-private",
    "playlist-read-collaborative",
    "playlist-modify-private",
    "playlist-modify-public",
    "user-follow-modify",
    "user-follow-read",
    "user-read-playback-position",
    "user-top-read",
    "user-read-recently-played",
    "user-library-modify",
    "user-library-read",
    "user-read-email",
    "user-read-private",
    "user-personalized",
    "user-soa-link",
    "user-soa-unlink",
    "user-manage-entitlements",
    "user-manage-partner",
    "user-create-partner",
];

/// A validated, de-duplicated set of scopes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes(BTreeSet<String>);

impl Scopes {
    /// Parses a space- (or comma-) separated list, refusing unknown scopes.
    pub fn parse(raw: &str) -> Result<Self, CatalogError> {
        let mut set = BTreeSet::new();
        for scope in raw.split([' ', ',', '+']).map(str::trim).filter(|s| !s.is_empty()) {
            if !ALL_SCOPES.contains(&scope) {
                return Err(CatalogError::oauth(OAuthErrorKind::InvalidScope, format!("unknown scope {scope:?}")));
            }
            set.insert(scope.to_owned());
        }
        Ok(Self(set))
    }

    /// Parses scopes stored by this server (already validated).
    pub fn from_stored(raw: &str) -> Self {
        Self(raw.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect())
    }

    pub fn contains(&self, scope: &str) -> bool {
        self.0.contains(scope)
    }

    /// Whether every scope of `other` is in this set.
    pub fn covers(&self, other: &Self) -> bool {
        other.0.is_subset(&self.0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Space-separated, sorted: the form stored and returned by `/api/token`.
    pub fn to_header(&self) -> String {
        self.0.iter().map(String::as_str).collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dedupes_and_refuses_unknown_scopes() {
        let s = Scopes::parse("user-library-read  playlist-modify-private user-library-read").unwrap();
        assert_eq!(s.to_header(), "playlist-modify-private user-library-read");
        assert!(s.contains("user-library-read"));
        assert!(Scopes::parse("user-library-read nope").is_err());
        assert!(Scopes::parse("").unwrap().is_empty());
        assert!(s.covers(&Scopes::parse("user-library-read").unwrap()));
        assert!(!s.covers(&Scopes::parse("user-top-read").unwrap()));
    }
}
