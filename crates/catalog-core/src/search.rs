//! Spotify's search query syntax: free words plus field filters.
//!
//! `q=night artist:"The Band" year:1990-1999 genre:jazz tag:new` becomes
//! free terms (every one must match the item's name, artists or album) and
//! filters. Filters a type does not have (`album:` on an artist) make that
//! type match nothing, as Spotify does.

/// A parsed search query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchQuery {
    /// Lowercased words that must all appear.
    pub terms: Vec<String>,
    pub artist: Option<String>,
    pub album: Option<String>,
    pub track: Option<String>,
    pub genre: Option<String>,
    pub isrc: Option<String>,
    /// Inclusive year range.
    pub years: Option<(i64, i64)>,
    /// `tag:new`: albums added in the last two weeks.
    pub tag_new: bool,
}

impl SearchQuery {
    pub fn parse(q: &str) -> Self {
        let mut query = Self::default();
        for token in tokenize(q) {
            let (field, value) = match token.split_once(':') {
                Some((f, v)) if !v.is_empty() => (Some(f.to_ascii_lowercase()), v.to_owned()),
                _ => (None, token.clone()),
            };
            let value = value.to_lowercase();
            match field.as_deref() {
                Some("artist") => query.artist = Some(value),
                Some("album") => query.album = Some(value),
                Some("track") => query.track = Some(value),
                Some("genre") => query.genre = Some(value),
                Some("isrc") => query.isrc = Some(value),
                Some("year") => query.years = parse_years(&value),
                Some("tag") if value == "new" => query.tag_new = true,
                // tag:hipster and unknown fields filter nothing we can know.
                Some("tag" | "upc") => {}
                _ => query.terms.push(token.to_lowercase()),
            }
        }
        query
    }

    /// Whether the query names any field only tracks and albums have.
    pub const fn has_track_fields(&self) -> bool {
        self.track.is_some() || self.isrc.is_some()
    }
}

/// Words shorter than this cannot use a trigram index.
pub const TRIGRAM: usize = 3;

/// An FTS5 query requiring every word of at least [`TRIGRAM`] characters as
/// a quoted phrase in `column` (`search_text : "night" AND search_text :
/// "ember"`; a quote inside a word is doubled). With the trigram tokenizer a
/// phrase matches any substring. `None` when no word is long enough.
pub fn fts_phrases(column: &str, words: &[String]) -> Option<String> {
    let phrases: Vec<String> = words
        .iter()
        .filter(|w| w.chars().count() >= TRIGRAM)
        .map(|w| format!("{column} : \"{}\"", w.replace('"', "\"\"")))
        .collect();
    if phrases.is_empty() { None } else { Some(phrases.join(" AND ")) }
}

fn parse_years(value: &str) -> Option<(i64, i64)> {
    match value.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            Some(if a <= b { (a, b) } else { (b, a) })
        }
        None => value.trim().parse().ok().map(|y| (y, y)),
    }
}

/// Splits on whitespace, keeping `"quoted phrases"` (also after `field:`) whole.
fn tokenize(q: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in q.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_phrases_and_year_ranges() {
        let q = SearchQuery::parse(r#"Night artist:"The Band" year:1999-1990 genre:Jazz tag:new album:x"#);
        assert_eq!(q.terms, vec!["night"]);
        assert_eq!(q.artist.as_deref(), Some("the band"));
        assert_eq!(q.years, Some((1990, 1999)));
        assert_eq!(q.genre.as_deref(), Some("jazz"));
        assert_eq!(q.album.as_deref(), Some("x"));
        assert!(q.tag_new);
        assert_eq!(SearchQuery::parse("year:2001").years, Some((2001, 2001)));
        assert_eq!(SearchQuery::parse("a  b").terms, vec!["a", "b"]);
        assert_eq!(SearchQuery::parse("http://x").terms, vec!["http://x"]);
    }

    #[test]
    fn long_words_become_fts_phrases() {
        let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            fts_phrases("t", &words(&["night", "ab", "ember"])).as_deref(),
            Some(r#"t : "night" AND t : "ember""#)
        );
        assert_eq!(
            fts_phrases("t", &words(&["say \"hi\"", "ünï"])).as_deref(),
            Some(r#"t : "say ""hi""" AND t : "ünï""#)
        );
        assert_eq!(fts_phrases("t", &words(&["a", "bc"])), None);
    }
}
