//! Path templates (`/pets/{petId}`, `/files/{name}.{ext}`) matched against
//! request paths.
//!
//! Routes are grouped by segment count and, within a group, tried from the
//! most specific (most literal segments, leftmost first) to the least, so
//! `/pets/mine` wins over `/pets/{id}` whatever the document order. The work
//! per request is a hash lookup plus a scan of the routes with the same
//! number of segments.

use std::collections::HashMap;

use percent_encoding::percent_decode_str;

#[derive(Debug, Clone)]
enum Segment {
    Literal(String),
    /// A segment that is one parameter, or literal text around parameters
    /// (`{name}.{ext}`, `v{version}`).
    Template(Vec<Piece>),
}

#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Param(String),
}

#[derive(Debug, Clone)]
struct Route {
    segments: Vec<Segment>,
    /// Index of the path (not the operation): the caller's payload.
    target: usize,
    specificity: Vec<u8>,
}

/// A compiled set of path templates.
#[derive(Debug, Default, Clone)]
pub struct Router {
    by_len: HashMap<usize, Vec<Route>>,
}

/// Path parameters captured by a match, decoded.
pub type Params = Vec<(String, String)>;

impl Router {
    /// Adds `template`; a match returns `target`.
    pub fn insert(&mut self, template: &str, target: usize) {
        let segments: Vec<Segment> = split(template).map(parse_segment).collect();
        let specificity = segments
            .iter()
            .map(|s| match s {
                Segment::Literal(_) => 2,
                Segment::Template(pieces) if pieces.iter().any(|p| matches!(p, Piece::Text(_))) => 1,
                Segment::Template(_) => 0,
            })
            .collect();
        let routes = self.by_len.entry(segments.len()).or_default();
        routes.push(Route { segments, target, specificity });
        routes.sort_by(|a, b| b.specificity.cmp(&a.specificity));
    }

    /// The first route matching `path`, with its parameters.
    #[must_use]
    pub fn find(&self, path: &str) -> Option<(usize, Params)> {
        let parts: Vec<&str> = split(path).collect();
        let routes = self.by_len.get(&parts.len())?;
        // Each segment decoded once (borrowed when it has no escapes), not
        // once per candidate route: a literal matches the raw or the decoded
        // form.
        let decoded: Vec<std::borrow::Cow<'_, str>> =
            parts.iter().map(|part| percent_decode_str(part).decode_utf8_lossy()).collect();
        routes.iter().find_map(|route| {
            let mut params = Vec::new();
            for ((segment, part), plain) in route.segments.iter().zip(&parts).zip(&decoded) {
                match segment {
                    Segment::Literal(text) => {
                        if text != part && text != plain {
                            return None;
                        }
                    }
                    Segment::Template(pieces) => match_pieces(pieces, part, &mut params)?,
                }
            }
            Some((route.target, params))
        })
    }
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    // `/x/` and `/x` are the same resource; empty segments are ignored.
    path.split('/').filter(|s| !s.is_empty())
}

fn decode(part: &str) -> String {
    percent_decode_str(part).decode_utf8_lossy().into_owned()
}

fn parse_segment(segment: &str) -> Segment {
    if !segment.contains('{') {
        return Segment::Literal(segment.to_owned());
    }
    let mut pieces = Vec::new();
    let mut rest = segment;
    while let Some((before, after)) = rest.split_once('{') {
        let Some((name, tail)) = after.split_once('}') else { break };
        if !before.is_empty() {
            pieces.push(Piece::Text(before.to_owned()));
        }
        pieces.push(Piece::Param(name.to_owned()));
        rest = tail;
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    Segment::Template(pieces)
}

/// Matches literal text and parameters left to right; a parameter takes the
/// shortest non-empty text up to the next literal (the last one takes the rest).
fn match_pieces(pieces: &[Piece], part: &str, params: &mut Params) -> Option<()> {
    let mut rest = part;
    let mut iter = pieces.iter().peekable();
    while let Some(piece) = iter.next() {
        match piece {
            Piece::Text(text) => rest = rest.strip_prefix(text.as_str())?,
            Piece::Param(name) => {
                let value = match iter.peek() {
                    Some(Piece::Text(next)) => {
                        let end = rest.get(1..)?.find(next.as_str())? + 1;
                        let (value, tail) = rest.split_at_checked(end)?;
                        rest = tail;
                        value
                    }
                    _ => std::mem::take(&mut rest),
                };
                if value.is_empty() {
                    return None;
                }
                params.push((name.clone(), decode(value)));
            }
        }
    }
    rest.is_empty().then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_beats_parameter_and_params_decode() {
        let mut router = Router::default();
        router.insert("/pets/{petId}", 0);
        router.insert("/pets/mine", 1);
        router.insert("/files/{name}.{ext}", 2);
        assert_eq!(router.find("/pets/mine").unwrap().0, 1);
        let (target, params) = router.find("/pets/a%20b/").unwrap();
        assert_eq!(target, 0);
        assert_eq!(params, vec![("petId".to_owned(), "a b".to_owned())]);
        let (target, params) = router.find("/files/report.v2.pdf").unwrap();
        assert_eq!(target, 2);
        assert_eq!(params[0].1, "report");
        assert_eq!(params[1].1, "v2.pdf");
        assert!(router.find("/pets").is_none());
        assert!(router.find("/files/.pdf").is_none());
    }
}
