//! Markdown to sanitised HTML: every description of a spec and every piece of
//! owner-written markdown goes through here before it reaches a page.
//!
//! pulldown-cmark renders CommonMark (with tables and strikethrough); ammonia
//! then keeps only an allow-list of tags and attributes, so raw HTML in the
//! source loses `<script>`, event handlers, `style`, and links whose scheme
//! is not http, https or mailto (`javascript:` URLs among them).

use std::collections::HashSet;
use std::sync::OnceLock;

use pulldown_cmark::{Options, Parser, html};

/// Markdown inputs longer than this are cut (a description is not a book).
pub const MAX_MARKDOWN_BYTES: usize = 200_000;

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut builder = ammonia::Builder::default();
        builder
            .url_schemes(HashSet::from(["http", "https", "mailto"]))
            .link_rel(Some("noopener noreferrer nofollow"))
            .add_generic_attributes(["id"])
            .id_prefix(Some("md-"));
        builder
    })
}

/// Renders `source` as CommonMark and sanitises the result.
#[must_use]
pub fn render(source: &str) -> String {
    let source = truncate(source, MAX_MARKDOWN_BYTES);
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let parser = Parser::new_ext(source, options);
    let mut unsafe_html = String::with_capacity(source.len() + source.len() / 4);
    html::push_html(&mut unsafe_html, parser);
    sanitize(&unsafe_html)
}

/// Sanitises an HTML fragment with the same allow-list.
#[must_use]
pub fn sanitize(fragment: &str) -> String {
    sanitizer().clean(fragment).to_string()
}

/// The first line of a description as plain text, for lists and titles.
#[must_use]
pub fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    line.chars().take(max_chars).collect()
}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown() {
        let html = render("# Title\n\nSome *emphasis* and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<h1"), "{html}");
        assert!(html.contains("<em>emphasis</em>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn strips_scripts_handlers_and_javascript_urls() {
        let hostile = "<script>alert(1)</script>\n\n<img src=x onerror=\"alert(2)\">\n\n[click](javascript:alert(3))\n\n<a href=\"javascript:alert(4)\">x</a> <iframe src=\"https://evil.example\"></iframe><style>body{}</style>";
        let html = render(hostile);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("alert(1)"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<iframe"), "{html}");
        assert!(!html.contains("<style"), "{html}");
    }

    #[test]
    fn keeps_safe_links_with_rel() {
        let html = render("[docs](https://example.com/a)");
        assert!(html.contains("href=\"https://example.com/a\""), "{html}");
        assert!(html.contains("noopener"), "{html}");
    }

    #[test]
    fn long_input_is_cut_on_a_char_boundary() {
        let text = "é".repeat(MAX_MARKDOWN_BYTES);
        assert!(render(&text).len() < MAX_MARKDOWN_BYTES * 2);
        assert_eq!(first_line("\n\n  hello world \nsecond", 5), "hello");
    }
}
