//! Syntax highlighting on the server, with syntect's Sublime grammars for
//! the languages the pages show (JSON, shell, JavaScript, Python, Go, Ruby,
//! PHP, Java) and those they embed, cut from syntect's default set at build
//! time (`build.rs`): the binary carries and loads only that subset.
//!
//! syntect tokenizes; this module maps its scopes to a handful of one-letter
//! classes (`p` property, `s` string, `n` number, `b` literal, `k` keyword,
//! `f` function, `c` comment, `v` variable) so highlighted pages stay small,
//! and the colours come from the theme tokens in `docs.css` (light and dark
//! alike). Text past [`MAX_BYTES`] is escaped without colours, and so is any
//! language the grammar set does not know.

use std::sync::OnceLock;

use syntect::easy::ScopeRangeIterator;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};
use syntect::util::LinesWithEndings;

use crate::escape;

/// Longer code is shown without colours (keeps the heaviest pages fast).
pub const MAX_BYTES: usize = 24 * 1024;

/// The grammar subset `build.rs` wrote (a syntect dump; each grammar compressed on its own).
const SYNTAXES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/syntaxes.packdump"));

/// The names of the grammars in [`SYNTAXES`], one a line.
pub const SYNTAX_NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/syntaxes.txt"));

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    // The dump is built from syntect's own data by the same syntect
    // version, so it always reads; an empty set would only leave the code
    // uncoloured.
    SET.get_or_init(|| syntect::dumps::from_uncompressed_data(SYNTAXES).unwrap_or_else(|_| SyntaxSet::new()))
}

struct Classes {
    rules: Vec<(Scope, &'static str)>,
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Classes> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let rules = [
            ("comment", "c"),
            ("meta.mapping.key", "p"),
            ("meta.structure.dictionary.key", "p"),
            ("support.type.property-name", "p"),
            ("string", "s"),
            ("constant.numeric", "n"),
            ("constant.language", "b"),
            ("constant.character", "s"),
            ("punctuation", ""),
            ("keyword.operator", ""),
            ("keyword", "k"),
            ("storage", "k"),
            ("entity.name.function", "f"),
            ("support.function", "f"),
            ("variable.function", "f"),
            ("entity.name.class", "f"),
            ("support.class", "f"),
            ("variable.parameter", "v"),
            ("variable.other.constant", "v"),
        ]
        .into_iter()
        .filter_map(|(name, class)| Scope::new(name).ok().map(|scope| (scope, class)))
        .collect();
        Classes { rules }
    })
}

/// The class of the first rule any scope of the stack matches (rules are
/// in priority order: a JSON key is a string inside a key).
fn class_of(stack: &ScopeStack, classes: &Classes) -> Option<&'static str> {
    let scopes = stack.as_slice();
    classes
        .rules
        .iter()
        .find(|(prefix, _)| scopes.iter().any(|scope| prefix.is_prefix_of(*scope)))
        .and_then(|(_, class)| (!class.is_empty()).then_some(*class))
}

/// Loads the grammars now (the first highlighted page need not wait for
/// them; a debug build takes seconds).
pub fn warm() {
    let _ = syntaxes();
    let _ = classes();
}

/// Whether `lang` (a syntect token: `json`, `sh`, `js`, `py`, `go`, `rb`,
/// `php`, `java`) is known.
#[must_use]
pub fn knows(lang: &str) -> bool {
    syntaxes().find_syntax_by_token(lang).is_some()
}

/// `code` as HTML with `<span class="...">` around highlighted tokens
/// (escaped; safe to embed in `<code>`).
#[must_use]
pub fn html(code: &str, lang: &str) -> String {
    if code.len() > MAX_BYTES {
        return escape(code);
    }
    let set = syntaxes();
    let Some(syntax) = set.find_syntax_by_token(lang) else { return escape(code) };
    let classes = classes();
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = String::with_capacity(code.len() + code.len() / 2);
    let mut open: Option<&'static str> = None;
    for line in LinesWithEndings::from(code) {
        let Ok(ops) = state.parse_line(line, set) else { return escape(code) };
        for (range, op) in ScopeRangeIterator::new(&ops, line) {
            if stack.apply(op).is_err() {
                return escape(code);
            }
            let Some(text) = line.get(range) else { return escape(code) };
            if text.is_empty() {
                continue;
            }
            // Blanks within a line join the open span; a line break ends it.
            let class = if text.contains('\n') && text.trim().is_empty() {
                None
            } else if text.trim().is_empty() {
                open
            } else {
                class_of(&stack, classes)
            };
            if class != open {
                if open.is_some() {
                    out.push_str("</span>");
                }
                if let Some(class) = class {
                    out.push_str("<span class=\"");
                    out.push_str(class);
                    out.push_str("\">");
                }
                open = class;
            }
            out.push_str(&escape(text));
        }
    }
    if open.is_some() {
        out.push_str("</span>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keys_strings_numbers_and_literals_get_their_classes() {
        let out = html("{\n  \"title\": \"Dune <1965>\",\n  \"pages\": 412,\n  \"ok\": true\n}", "json");
        assert!(out.contains("<span class=\"p\">&quot;title&quot;</span>"), "{out}");
        assert!(out.contains("<span class=\"s\">&quot;Dune &lt;1965&gt;&quot;</span>"), "{out}");
        assert!(out.contains("<span class=\"n\">412</span>"), "{out}");
        assert!(out.contains("<span class=\"b\">true</span>"), "{out}");
        assert!(!out.contains("<1965>"), "text is escaped: {out}");
    }

    #[test]
    fn code_samples_are_highlighted_per_language() {
        let py = html("import requests\nresponse = requests.get(\"https://x\")\n", "py");
        assert!(py.contains("<span class=\"k\">import"), "{py}");
        let go = html("package main\n\nfunc main() {}\n", "go");
        assert!(go.contains("<span class=\"k\">func"), "{go}");
        let sh = html("curl -X GET 'https://x'\n", "sh");
        assert!(sh.contains("<span class=\"s\">"), "{sh}");
        for lang in ["json", "sh", "js", "py", "go", "rb", "php", "java"] {
            assert!(knows(lang), "{lang}");
        }
    }

    #[test]
    fn every_sample_language_gets_highlighted_spans() {
        let spec = spec::parse(
            br#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
               "paths": {"/pets/{id}": {"post": {"operationId": "addPet",
                 "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                 "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                   "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}}}},
                 "responses": {"200": {"description": "ok"}}}}}}"#,
        )
        .unwrap();
        let operation = spec.operations.first().unwrap();
        let samples = crate::samples::samples(&spec, operation, "https://api.example.com");
        let ids: Vec<&str> = samples.iter().map(|s| s.id).collect();
        assert_eq!(ids, ["curl", "js", "python", "go", "ruby", "php", "java"]);
        for sample in &samples {
            // More than one kind of token: the grammar really parsed it.
            let kinds: std::collections::BTreeSet<&str> = ["p", "s", "n", "b", "k", "f", "c", "v"]
                .into_iter()
                .filter(|c| sample.html.contains(&format!("<span class=\"{c}\">")))
                .collect();
            assert!(kinds.len() >= 2, "{}: {kinds:?} in {}", sample.id, sample.html);
            assert!(sample.html.contains("<span class=\"s\">"), "{}: strings are coloured: {}", sample.id, sample.html);
        }
        let json = html("{\"name\": \"Rex\", \"age\": 3, \"ok\": null}", "json");
        for class in ["p", "s", "n", "b"] {
            assert!(json.contains(&format!("<span class=\"{class}\">")), "{class}: {json}");
        }
    }

    #[test]
    fn only_the_needed_grammars_are_compiled_in() {
        let names: Vec<&str> = SYNTAX_NAMES.lines().collect();
        for needed in ["JSON", "Bourne Again Shell (bash)", "JavaScript", "Python", "Go", "Ruby", "PHP", "Java"] {
            assert!(names.contains(&needed), "{needed} in {names:?}");
        }
        // syntect's default set has 75 grammars; unrelated ones stay out.
        for unrelated in ["Rust", "LaTeX", "Haskell", "Makefile", "Markdown"] {
            assert!(!names.contains(&unrelated), "{unrelated} in {names:?}");
        }
        assert_eq!(syntaxes().syntaxes().len(), names.len());
    }

    #[test]
    fn unknown_languages_and_huge_text_are_escaped_plainly() {
        assert_eq!(html("<b>", "no-such-language"), "&lt;b&gt;");
        let big = format!("[{}1]", "1,".repeat(MAX_BYTES));
        assert!(!html(&big, "json").contains("<span"));
    }
}
