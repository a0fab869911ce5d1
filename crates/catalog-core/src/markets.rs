//! The markets the catalog serves: the countries an operator names in
//! `SVC_CATALOG_MARKETS` (comma-separated ISO 3166-1 alpha-2 codes; `US`
//! when unset). `/markets` lists them, every item's `available_markets` is
//! this list, and an item is playable in a request's `market` only when the
//! list holds it (the library has no per-item regional rights, so the whole
//! library shares one list).

use crate::error::{CatalogError, CatalogResult};

/// The most codes a list may hold (ISO 3166-1 has 249).
const MAX_MARKETS: usize = 250;

/// A non-empty, de-duplicated list of upper-case two-letter codes, in the
/// order they were given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Markets(Vec<String>);

impl Default for Markets {
    /// One market, `US`: what Spotify's own clients assume when they name none.
    fn default() -> Self {
        Self(vec!["US".to_owned()])
    }
}

impl Markets {
    /// Parses `DE, fr,US`: codes of two ASCII letters in any case, separated
    /// by commas; at least one, at most 250.
    pub fn parse(raw: &str) -> CatalogResult<Self> {
        let mut codes: Vec<String> = Vec::new();
        for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part.len() != 2 || !part.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(CatalogError::invalid(format!("{part:?} is not a two-letter ISO 3166-1 market code")));
            }
            let code = part.to_ascii_uppercase();
            if !codes.contains(&code) {
                codes.push(code);
            }
            if codes.len() > MAX_MARKETS {
                return Err(CatalogError::invalid(format!("at most {MAX_MARKETS} markets")));
            }
        }
        if codes.is_empty() {
            return Err(CatalogError::invalid("name at least one market code"));
        }
        Ok(Self(codes))
    }

    pub fn codes(&self) -> &[String] {
        &self.0
    }

    /// The first market: the country of users created without one.
    pub fn first(&self) -> &str {
        self.0.first().map_or("US", String::as_str)
    }

    pub fn contains(&self, code: &str) -> bool {
        self.0.iter().any(|c| c.eq_ignore_ascii_case(code))
    }

    /// Whether an item is playable for a request in `market` (upper case,
    /// `from_token` already resolved). No market means no restriction, as
    /// Spotify answers without one.
    pub fn is_playable(&self, market: Option<&str>) -> bool {
        market.is_none_or(|m| self.contains(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_in_any_case_without_duplicates() {
        let m = Markets::parse(" de, fr ,DE,us").unwrap();
        assert_eq!(m.codes(), ["DE", "FR", "US"]);
        assert_eq!(m.first(), "DE");
        assert_eq!(Markets::default().codes(), ["US"]);
        for bad in ["", " , ", "DEU", "D1", "de;fr", "ü"] {
            assert!(matches!(Markets::parse(bad), Err(CatalogError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn playable_only_in_listed_markets() {
        let m = Markets::parse("DE,FR").unwrap();
        assert!(m.is_playable(Some("DE")));
        assert!(m.is_playable(Some("fr")));
        assert!(!m.is_playable(Some("US")));
        assert!(m.is_playable(None), "no market asks for no restriction");
    }
}
