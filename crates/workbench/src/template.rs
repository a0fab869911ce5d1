//! `{{name}}` placeholders, as Postman writes them: a name is anything but
//! braces and line breaks, with spaces around it ignored. A placeholder
//! whose name no environment holds is left as written and reported (what
//! Postman, Insomnia and Bruno do), so the request shows what is missing.
//! One pass: a value that itself holds `{{...}}` is not resolved again.
//!
//! Written here rather than with a template engine: those treat unknown
//! names as empty or as errors, and give `{%`/`{#` meanings a request body
//! must not have.

use std::collections::BTreeSet;

/// Longest name read inside braces; longer runs are text.
const MAX_NAME: usize = 100;

/// Each `{{...}}` span of `text`: (start, end, trimmed name).
fn spans(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(open) = text.get(at..)?.find("{{").map(|i| i + at) {
            let inner_start = open + 2;
            let rest = text.get(inner_start..)?;
            let close = rest.find("}}")?;
            let inner = rest.get(..close)?;
            let name = inner.trim();
            if !name.is_empty()
                && name.chars().count() <= MAX_NAME
                && !inner.contains('{')
                && !inner.chars().any(|c| c == '\n' || c == '\r')
            {
                let end = inner_start + close + 2;
                at = end;
                return Some((open, end, name));
            }
            at = open + 1;
        }
        None
    })
}

/// The placeholder names of `text`, in order, repeats included.
#[must_use]
pub fn names(text: &str) -> Vec<String> {
    spans(text).map(|(_, _, name)| name.to_owned()).collect()
}

/// Whether `text` is one placeholder and nothing else (a header name may be).
#[must_use]
pub fn is_placeholder_only(text: &str) -> bool {
    let mut found = spans(text);
    matches!(found.next(), Some((0, end, _)) if end == text.len()) && found.next().is_none()
}

/// `text` with every placeholder `lookup` knows replaced by its value;
/// the names it does not know are added to `unknown` and left as written.
pub fn resolve<'v>(text: &str, lookup: impl Fn(&str) -> Option<&'v str>, unknown: &mut BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end, name) in spans(text) {
        out.push_str(text.get(last..start).unwrap_or_default());
        match lookup(name) {
            Some(value) => out.push_str(value),
            None => {
                unknown.insert(name.to_owned());
                out.push_str(text.get(start..end).unwrap_or_default());
            }
        }
        last = end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    out
}

/// Splits `text` into literal pieces and placeholder names, for renderers
/// that treat some names specially ("copy as curl" writes secrets as shell
/// variables).
#[must_use]
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut last = 0;
    for (start, end, name) in spans(text) {
        if start > last {
            out.push(Piece::Text(text.get(last..start).unwrap_or_default()));
        }
        out.push(Piece::Name(name, text.get(start..end).unwrap_or_default()));
        last = end;
    }
    if last < text.len() {
        out.push(Piece::Text(text.get(last..).unwrap_or_default()));
    }
    out
}

/// A piece of a text: literal, or a placeholder (its name and as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Name(&'a str, &'a str),
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<&'static str> {
        match name {
            "base" => Some("https://api.example.com"),
            "id" => Some("42"),
            "nested" => Some("{{id}}"),
            _ => None,
        }
    }

    #[test]
    fn known_names_resolve_and_unknown_ones_stay_and_are_reported() {
        let mut unknown = BTreeSet::new();
        let out = resolve("{{base}}/pets/{{ id }}?t={{token}}&x={{nested}}", env, &mut unknown);
        assert_eq!(out, "https://api.example.com/pets/42?t={{token}}&x={{id}}", "one pass");
        assert_eq!(unknown.into_iter().collect::<Vec<_>>(), ["token"]);
    }

    #[test]
    fn braces_that_are_not_placeholders_are_text() {
        let mut unknown = BTreeSet::new();
        let json = r#"{"a": {"b": 1}} {{}} {{ }} {{{id}}} {{x"#;
        let out = resolve(json, env, &mut unknown);
        assert_eq!(out, r#"{"a": {"b": 1}} {{}} {{ }} {42} {{x"#);
        assert!(unknown.is_empty());
        assert_eq!(names("{{a}}{{b}}{{a}}"), ["a", "b", "a"]);
        assert!(is_placeholder_only("{{h}}") && !is_placeholder_only("X-{{h}}"));
        assert_eq!(pieces("a{{b}}c"), [Piece::Text("a"), Piece::Name("b", "{{b}}"), Piece::Text("c")]);
        let long = format!("{{{{{}}}}}", "n".repeat(MAX_NAME + 1));
        assert!(names(&long).is_empty(), "over-long names are text");
    }

    #[test]
    fn multibyte_text_around_placeholders_is_kept() {
        let mut unknown = BTreeSet::new();
        assert_eq!(resolve("é{{id}}ü{{", env, &mut unknown), "é42ü{{");
    }
}
