//! Path templates (`/pets/{petId}`, `/files/{name}.{ext}`) matched against
//! request paths.
//!
//! Templates are kept in a tree of segments. At each segment a request tries
//! the literal children first, then the segments with literal text around
//! parameters (`{name}.{ext}`, `v{version}`), then a segment that is one
//! parameter, and takes the first complete match: so the most specific route
//! wins (most literal segments, leftmost first), `/pets/mine` over
//! `/pets/{id}` whatever the document order. The work per request grows with
//! the number of segments, not with the number of paths (GitHub's
//! description has 80 paths under `/repos/{owner}/{repo}/...` with four
//! segments; a scan tried them all).
//!
//! Written here rather than taken from `matchit` (axum's router): OpenAPI
//! documents name the same position differently on sibling paths
//! (`/pets/{id}` beside `/pets/{petId}/toys`), repeat templates, and put
//! literal text around several parameters in one segment, all of which a
//! conflict-checking radix tree refuses at insertion.

use std::collections::HashMap;

use percent_encoding::percent_decode_str;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Param,
}

/// One segment of the tree. Parameter names are not part of the tree (two
/// paths that differ only in them share their nodes); each route keeps its
/// own names at its end.
#[derive(Debug, Default, Clone)]
struct Node {
    literals: HashMap<String, Node>,
    /// Segments with parameters, by shape: those with literal text around
    /// their parameters in the order first inserted, then a segment that is
    /// one parameter.
    templates: Vec<(Vec<Piece>, Node)>,
    /// The route ending here (the first inserted wins).
    end: Option<Leaf>,
}

#[derive(Debug, Clone)]
struct Leaf {
    target: usize,
    names: Vec<String>,
}

/// A compiled set of path templates.
#[derive(Debug, Default, Clone)]
pub struct Router {
    root: Node,
}

/// Path parameters captured by a match, decoded.
pub type Params = Vec<(String, String)>;

impl Router {
    /// Adds `template`; a match returns `target`.
    pub fn insert(&mut self, template: &str, target: usize) {
        let mut node = &mut self.root;
        let mut names = Vec::new();
        for segment in split(template) {
            let pieces = parse_segment(segment, &mut names);
            node = match pieces.as_slice() {
                [] => node.literals.entry(segment.to_owned()).or_default(),
                _ => {
                    let position = match node.templates.iter().position(|(shape, _)| *shape == pieces) {
                        Some(position) => position,
                        None => {
                            // A plain parameter stays last.
                            let plain = |shape: &[Piece]| matches!(shape, [Piece::Param]);
                            let at = if plain(&pieces) {
                                node.templates.len()
                            } else {
                                node.templates.iter().take_while(|(shape, _)| !plain(shape)).count()
                            };
                            node.templates.insert(at, (pieces, Node::default()));
                            at
                        }
                    };
                    match node.templates.get_mut(position) {
                        Some((_, child)) => child,
                        None => return,
                    }
                }
            };
        }
        node.end.get_or_insert(Leaf { target, names });
    }

    /// The most specific route matching `path`, with its parameters.
    #[must_use]
    pub fn find(&self, path: &str) -> Option<(usize, Params)> {
        let parts: Vec<&str> = split(path).collect();
        let mut values = Vec::new();
        let leaf = find_in(&self.root, &parts, &mut values)?;
        let params = leaf.names.iter().cloned().zip(values.into_iter().map(decode)).collect();
        Some((leaf.target, params))
    }
}

/// Depth-first, most specific child first; `values` collects the raw
/// parameter values on the way (cut back when a branch fails).
fn find_in<'n, 'p>(node: &'n Node, parts: &[&'p str], values: &mut Vec<&'p str>) -> Option<&'n Leaf> {
    let Some((part, rest)) = parts.split_first() else { return node.end.as_ref() };
    // A literal matches the raw segment, then its decoded form (borrowed
    // when the segment has no escapes).
    let plain = percent_decode_str(part).decode_utf8_lossy();
    let decoded = (plain != *part).then_some(plain.as_ref());
    for key in std::iter::once(*part).chain(decoded) {
        if let Some(found) = node.literals.get(key).and_then(|child| find_in(child, rest, values)) {
            return Some(found);
        }
    }
    let mark = values.len();
    for (pieces, child) in &node.templates {
        if match_pieces(pieces, part, values).is_some()
            && let Some(found) = find_in(child, rest, values)
        {
            return Some(found);
        }
        values.truncate(mark);
    }
    None
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    // `/x/` and `/x` are the same resource; empty segments are ignored.
    path.split('/').filter(|s| !s.is_empty())
}

fn decode(part: &str) -> String {
    percent_decode_str(part).decode_utf8_lossy().into_owned()
}

/// The pieces of a template segment (none for a literal one), its parameter
/// names appended to `names`.
fn parse_segment(segment: &str, names: &mut Vec<String>) -> Vec<Piece> {
    let mut pieces = Vec::new();
    if !segment.contains('{') {
        return pieces;
    }
    let mut rest = segment;
    while let Some((before, after)) = rest.split_once('{') {
        let Some((name, tail)) = after.split_once('}') else { break };
        if !before.is_empty() {
            pieces.push(Piece::Text(before.to_owned()));
        }
        pieces.push(Piece::Param);
        names.push(name.to_owned());
        rest = tail;
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    pieces
}

/// Matches literal text and parameters left to right; a parameter takes the
/// shortest non-empty text up to the next literal (the last one takes the rest).
fn match_pieces<'p>(pieces: &[Piece], part: &'p str, values: &mut Vec<&'p str>) -> Option<()> {
    let mut rest = part;
    let mut iter = pieces.iter().peekable();
    while let Some(piece) = iter.next() {
        match piece {
            Piece::Text(text) => rest = rest.strip_prefix(text.as_str())?,
            Piece::Param => {
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
                values.push(value);
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

    #[test]
    fn most_specific_route_wins_at_every_segment() {
        let mut router = Router::default();
        router.insert("/{kind}/{id}", 0);
        router.insert("/repos/{owner}", 1);
        router.insert("/repos/mine", 2);
        router.insert("/a b/{x}", 3);
        router.insert("/a%20b/{x}", 4);
        router.insert("/v{n}/{x}", 5);
        router.insert("/", 6);
        assert_eq!(router.find("/repos/mine").unwrap().0, 2);
        assert_eq!(router.find("/repos/octo").unwrap().0, 1);
        // A first segment no literal route starts with falls to the open ones,
        // the one with literal text around its parameter first.
        assert_eq!(router.find("/v2/x").unwrap().0, 5);
        assert_eq!(
            router.find("/users/7").unwrap(),
            (0, vec![("kind".into(), "users".into()), ("id".into(), "7".into())])
        );
        // A literal matches the raw segment or its decoded form, the raw
        // one first.
        assert_eq!(router.find("/a%20b/1").unwrap().0, 4);
        assert_eq!(router.find("/a b/1").unwrap().0, 3);
        assert_eq!(router.find("/a%20b").map(|found| found.0), None);
        assert_eq!(router.find("/").unwrap().0, 6);
        assert_eq!(router.find("").unwrap().0, 6);
    }

    #[test]
    fn backtracks_past_a_literal_that_leads_nowhere() {
        let mut router = Router::default();
        router.insert("/repos/{owner}/{repo}/topics", 0);
        router.insert("/repos/{owner}/{repo}", 1);
        router.insert("/repos/mine/{repo}/stars", 2);
        router.insert("/{a}/{b}/{c}/{d}", 3);
        router.insert("/repos/{org}/{name}", 4);
        // `mine` is literal on the way to `stars`, but `topics` only follows
        // the parameter.
        let (target, params) = router.find("/repos/mine/x/topics").unwrap();
        assert_eq!(target, 0);
        assert_eq!(params, vec![("owner".into(), "mine".into()), ("repo".into(), "x".into())]);
        assert_eq!(router.find("/repos/mine/x/stars").unwrap().0, 2);
        assert_eq!(router.find("/repos/mine/x/forks").unwrap().0, 3);
        // Paths that differ only in parameter names: the first one wins, with
        // its own names.
        assert_eq!(
            router.find("/repos/o/r").unwrap(),
            (1, vec![("owner".into(), "o".into()), ("repo".into(), "r".into())])
        );
        // Parameters decode; a template segment keeps its literal text.
        router.insert("/files/{name}.{ext}", 5);
        let (target, params) = router.find("/files/my%20report.tar.gz").unwrap();
        assert_eq!(target, 5);
        assert_eq!(params, vec![("name".into(), "my report".into()), ("ext".into(), "tar.gz".into())]);
    }
}
