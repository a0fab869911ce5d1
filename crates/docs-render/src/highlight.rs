//! Syntax highlighting on the server for the languages the pages show:
//! JSON examples and the request samples (shell, JavaScript, Python, Go,
//! Ruby, PHP, Java).
//!
//! A small tokenizer of our own, not a grammar engine: the pages highlight
//! only those eight languages, most of it code the samples module writes,
//! and a general engine (syntect's Sublime grammars, used before) held about
//! 95 MB of compiled grammars per process for it. This one keeps no state
//! between calls and allocates only its output. What it knows per language:
//! comments, string quotes, keywords, literals, variables by sigil, calls
//! (a name before `(`) and JSON keys (a string before `:`).
//!
//! Tokens get one-letter classes (`p` property, `s` string, `n` number, `b`
//! literal, `k` keyword, `f` function, `c` comment, `v` variable) so pages
//! stay small; the colours come from the theme tokens in `docs.css` (light
//! and dark alike). Text past [`MAX_BYTES`] is escaped without colours, and
//! so is any language not listed here.

use crate::escape;

/// Longer code is shown without colours (keeps the heaviest pages fast).
pub const MAX_BYTES: usize = 24 * 1024;

/// What the tokenizer needs to know of one language.
struct Language {
    /// Line comments (`//`, `#`).
    line_comments: &'static [&'static str],
    /// Whether `/* ... */` comments exist.
    block_comments: bool,
    /// String delimiters; each string ends at the same character, and a
    /// backslash escapes the next one.
    quotes: &'static [u8],
    keywords: &'static [&'static str],
    literals: &'static [&'static str],
    /// A character that starts a variable (`$` in shell and PHP).
    sigil: Option<u8>,
    /// A string followed by `:` is a key (JSON).
    keys: bool,
    /// The first word of a line is a command (shell).
    commands: bool,
}

const JSON: Language = Language {
    line_comments: &[],
    block_comments: false,
    quotes: b"\"",
    keywords: &[],
    literals: &["true", "false", "null"],
    sigil: None,
    keys: true,
    commands: false,
};

const SHELL: Language = Language {
    line_comments: &["#"],
    block_comments: false,
    quotes: b"\"'",
    keywords: &["if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "case", "esac", "export"],
    literals: &[],
    sigil: Some(b'$'),
    keys: false,
    commands: true,
};

const JAVASCRIPT: Language = Language {
    line_comments: &["//"],
    block_comments: true,
    quotes: b"\"'`",
    keywords: &[
        "const", "let", "var", "await", "async", "function", "return", "if", "else", "for", "of", "in", "new",
        "import", "from", "export", "try", "catch", "throw", "class", "typeof",
    ],
    literals: &["true", "false", "null", "undefined"],
    sigil: None,
    keys: false,
    commands: false,
};

const PYTHON: Language = Language {
    line_comments: &["#"],
    block_comments: false,
    quotes: b"\"'",
    keywords: &[
        "import", "from", "as", "def", "return", "if", "elif", "else", "for", "in", "while", "with", "try", "except",
        "raise", "class", "lambda", "and", "or", "not", "is", "pass",
    ],
    literals: &["True", "False", "None"],
    sigil: None,
    keys: false,
    commands: false,
};

const GO: Language = Language {
    line_comments: &["//"],
    block_comments: true,
    quotes: b"\"`'",
    keywords: &[
        "package", "import", "func", "return", "if", "else", "for", "range", "defer", "var", "const", "type", "struct",
        "go", "switch", "case", "default", "map", "chan",
    ],
    literals: &["true", "false", "nil"],
    sigil: None,
    keys: false,
    commands: false,
};

const RUBY: Language = Language {
    line_comments: &["#"],
    block_comments: false,
    quotes: b"\"'",
    keywords: &[
        "require", "def", "end", "do", "if", "elsif", "else", "unless", "while", "return", "class", "module", "begin",
        "rescue", "puts", "yield",
    ],
    literals: &["true", "false", "nil"],
    sigil: None,
    keys: false,
    commands: false,
};

const PHP: Language = Language {
    line_comments: &["//", "#"],
    block_comments: true,
    quotes: b"\"'",
    keywords: &["echo", "function", "return", "if", "else", "foreach", "as", "new", "array", "use", "namespace"],
    literals: &["true", "false", "null"],
    sigil: Some(b'$'),
    keys: false,
    commands: false,
};

const JAVA: Language = Language {
    line_comments: &["//"],
    block_comments: true,
    quotes: b"\"'",
    keywords: &[
        "import", "package", "public", "private", "static", "final", "class", "new", "return", "if", "else", "for",
        "void", "throws", "try", "catch", "var",
    ],
    literals: &["true", "false", "null"],
    sigil: None,
    keys: false,
    commands: false,
};

/// The language of a token (`json`, `sh`, `js`, `py`, `go`, `rb`, `php`,
/// `java`, and their usual aliases).
fn language(token: &str) -> Option<&'static Language> {
    Some(match token.to_ascii_lowercase().as_str() {
        "json" => &JSON,
        "sh" | "bash" | "shell" | "curl" => &SHELL,
        "js" | "javascript" | "node" => &JAVASCRIPT,
        "py" | "python" => &PYTHON,
        "go" | "golang" => &GO,
        "rb" | "ruby" => &RUBY,
        "php" => &PHP,
        "java" => &JAVA,
        _ => return None,
    })
}

/// Whether `lang` (`json`, `sh`, `js`, `py`, `go`, `rb`, `php`, `java`) is
/// known.
#[must_use]
pub fn knows(lang: &str) -> bool {
    language(lang).is_some()
}

/// `code` as HTML with `<span class="...">` around highlighted tokens
/// (escaped; safe to embed in `<code>`).
#[must_use]
pub fn html(code: &str, lang: &str) -> String {
    if code.len() > MAX_BYTES {
        return escape(code);
    }
    let Some(language) = language(lang) else { return escape(code) };
    let mut out = Output { html: String::with_capacity(code.len() + code.len() / 2), open: None };
    let bytes = code.as_bytes();
    let mut at = 0;
    // Shell: the next word starts a command (at a line's start, after `|`).
    let mut command_next = language.commands;
    while at < bytes.len() {
        let rest = code.get(at..).unwrap_or_default();
        let byte = bytes.get(at).copied().unwrap_or_default();
        // Comments run to the end of the line (or of the block).
        if let Some(marker) = language.line_comments.iter().find(|m| rest.starts_with(**m))
            && comment_allowed(bytes, at, marker)
        {
            let end = rest.find('\n').map_or(bytes.len(), |n| at + n);
            out.token(code.get(at..end).unwrap_or_default(), Some("c"));
            at = end;
            continue;
        }
        if language.block_comments && rest.starts_with("/*") {
            let end = rest.get(2..).and_then(|r| r.find("*/")).map_or(bytes.len(), |n| at + n + 4);
            out.token(code.get(at..end).unwrap_or_default(), Some("c"));
            at = end;
            continue;
        }
        if language.quotes.contains(&byte) {
            let end = string_end(bytes, at, byte);
            let text = code.get(at..end).unwrap_or_default();
            let is_key = language.keys && next_significant(bytes, end) == Some(b':');
            out.token(text, Some(if is_key { "p" } else { "s" }));
            at = end;
            command_next = false;
            continue;
        }
        if language.sigil == Some(byte) && bytes.get(at + 1).is_some_and(|b| is_word_start(*b) || *b == b'{') {
            let end = word_end(bytes, at + 1);
            out.token(code.get(at..end).unwrap_or_default(), Some("v"));
            at = end;
            continue;
        }
        if byte.is_ascii_digit() && !bytes.get(at.wrapping_sub(1)).is_some_and(|b| is_word_byte(*b)) {
            let end = number_end(bytes, at);
            out.token(code.get(at..end).unwrap_or_default(), Some("n"));
            at = end;
            continue;
        }
        if is_word_start(byte) {
            let end = word_end(bytes, at);
            let word = code.get(at..end).unwrap_or_default();
            let class = if command_next {
                Some("f")
            } else if language.keywords.contains(&word) {
                Some("k")
            } else if language.literals.contains(&word) {
                Some("b")
            } else if next_significant(bytes, end) == Some(b'(') && bytes.get(end) != Some(&b' ') {
                Some("f")
            } else {
                None
            };
            out.token(word, class);
            command_next = false;
            at = end;
            continue;
        }
        // Anything else is one plain character (whole, if multi-byte).
        let len = rest.chars().next().map_or(1, char::len_utf8);
        let text = code.get(at..at + len).unwrap_or_default();
        if language.commands && (byte == b'|' || byte == b';') {
            command_next = true;
        }
        if byte == b'\n' {
            command_next = language.commands && !ends_with_continuation(code.get(..at).unwrap_or_default());
        }
        out.plain(text);
        at += len;
    }
    out.finish()
}

/// The HTML being written, with the span that is open (blanks inside a
/// line join it; a line break closes it).
struct Output {
    html: String,
    open: Option<&'static str>,
}

impl Output {
    fn token(&mut self, text: &str, class: Option<&'static str>) {
        // A token that spans lines (a block comment, a raw string) is
        // written line by line so no span crosses a line break.
        let mut lines = text.split('\n').peekable();
        while let Some(line) = lines.next() {
            if !line.is_empty() {
                self.switch(class);
                self.html.push_str(&escape(line));
            }
            if lines.peek().is_some() {
                self.plain("\n");
            }
        }
    }

    fn plain(&mut self, text: &str) {
        if text.trim().is_empty() && !text.contains('\n') {
            // Blanks keep the open span, as the old engine did.
            self.html.push_str(&escape(text));
            return;
        }
        self.switch(None);
        self.html.push_str(&escape(text));
    }

    fn switch(&mut self, class: Option<&'static str>) {
        if class == self.open {
            return;
        }
        if self.open.is_some() {
            self.html.push_str("</span>");
        }
        if let Some(class) = class {
            self.html.push_str("<span class=\"");
            self.html.push_str(class);
            self.html.push_str("\">");
        }
        self.open = class;
    }

    fn finish(mut self) -> String {
        self.switch(None);
        self.html
    }
}

/// Whether a line comment may start at `at`: `#` inside a shell word (a
/// URL's fragment) or PHP's `<?php` is not one.
fn comment_allowed(bytes: &[u8], at: usize, marker: &str) -> bool {
    if marker != "#" {
        return true;
    }
    let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
    before.is_none_or(|b| b.is_ascii_whitespace() || b == b';')
}

/// Where a string that opens with `quote` at `at` ends (after its closing
/// quote, or at the end of the line for an unclosed `'` or `"`; a backtick
/// string may span lines).
fn string_end(bytes: &[u8], at: usize, quote: u8) -> usize {
    let mut i = at + 1;
    while let Some(b) = bytes.get(i).copied() {
        if b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote {
            return i + 1;
        }
        if b == b'\n' && quote != b'`' {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    if bytes.get(i) == Some(&b'{') {
        // `${name}`
        while bytes.get(i).is_some_and(|b| *b != b'}' && *b != b'\n') {
            i += 1;
        }
        return (i + 1).min(bytes.len());
    }
    while bytes.get(i).is_some_and(|b| is_word_byte(*b)) {
        i += 1;
    }
    // Stay on a character boundary: word bytes above 0x7f are whole UTF-8
    // sequences, whose continuation bytes are also >= 0x80.
    i
}

fn number_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'_') {
        // An exponent's sign belongs to the number.
        if matches!(bytes.get(i), Some(b'e' | b'E')) && matches!(bytes.get(i + 1), Some(b'+' | b'-')) {
            i += 1;
        }
        i += 1;
    }
    i
}

/// The next byte after `from` that is not a blank (on the same line).
fn next_significant(bytes: &[u8], from: usize) -> Option<u8> {
    bytes.get(from..)?.iter().copied().find(|b| *b != b' ' && *b != b'\t')
}

/// A shell line ending with `\` continues the same command.
fn ends_with_continuation(before: &str) -> bool {
    before.rsplit('\n').next().is_some_and(|line| line.trim_end().ends_with('\\'))
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
        let exponent = html("[-1.5e+10, \"a\\\"b\"]", "json");
        assert!(exponent.contains("<span class=\"n\">1.5e+10</span>"), "{exponent}");
        assert!(exponent.contains("<span class=\"s\">&quot;a\\&quot;b&quot;</span>"), "{exponent}");
    }

    #[test]
    fn code_samples_are_highlighted_per_language() {
        let py = html("import requests\nresponse = requests.get(\"https://x\")\n", "py");
        assert!(py.contains("<span class=\"k\">import"), "{py}");
        assert!(py.contains("<span class=\"f\">get</span>"), "{py}");
        let go = html("package main\n\nfunc main() {}\n", "go");
        assert!(go.contains("<span class=\"k\">func"), "{go}");
        let sh = html("curl -X GET 'https://x#frag' \\\n  -H 'A: b' # a comment\n", "sh");
        assert!(sh.contains("<span class=\"f\">curl"), "{sh}");
        assert!(sh.contains("<span class=\"s\">&#x27;https://x#frag&#x27;"), "{sh}");
        assert!(sh.contains("<span class=\"c\"># a comment</span>"), "{sh}");
        assert!(!sh.contains("<span class=\"f\">-H"), "a continued line is not a new command: {sh}");
        let php = html("<?php\n$ch = curl_init('x');\n", "php");
        assert!(php.contains("<span class=\"v\">$ch") && php.contains("<span class=\"f\">curl_init</span>"), "{php}");
        let js = html("/* many\nlines */ const a = `x\ny`;", "js");
        assert!(js.contains("<span class=\"c\">/* many</span>\n<span class=\"c\">lines */"), "{js}");
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
            // More than one kind of token: the language really was read.
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
    fn the_text_comes_back_whole_and_spans_never_cross_lines() {
        for (code, lang) in [
            ("{\"a\": [1, 2.5, \"x\\ny\"], \"b\": {\"c\": false}}", "json"),
            ("curl -X POST 'https://é.example/ü' \\\n  --data '{\"a\": 1}'", "sh"),
            ("const s = `a\nb`; // é\nconsole.log(s)", "js"),
            ("unclosed \"string\nnext line", "py"),
        ] {
            let out = html(code, lang);
            let text = out
                .split('<')
                .enumerate()
                .map(|(i, part)| if i == 0 { part } else { part.split_once('>').map_or("", |(_, t)| t) })
                .collect::<String>()
                .replace("&quot;", "\"")
                .replace("&#x27;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
            assert_eq!(text, code, "{lang}: {out}");
            for line in out.lines() {
                assert_eq!(line.matches("<span").count(), line.matches("</span>").count(), "{lang}: {line}");
            }
        }
    }

    #[test]
    fn unknown_languages_and_huge_text_are_escaped_plainly() {
        assert_eq!(html("<b>", "no-such-language"), "&lt;b&gt;");
        let big = format!("[{}1]", "1,".repeat(MAX_BYTES));
        assert!(!html(&big, "json").contains("<span"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_in_any_language_is_answered_whole(code in "\\PC{0,200}", lang in "(json|sh|js|py|go|rb|php|java)") {
            let out = html(&code, &lang);
            proptest::prop_assert!(!out.contains('<') || out.contains("<span"));
        }
    }
}
