//! Turning raw bytes into text and guessing which syntax the text is in.
//!
//! This runs before any parser sees the input, so it must be cheap and must
//! never fail on hostile bytes: everything here is a linear scan.

use std::borrow::Cow;

use crate::error::{SpecError, SpecErrorKind};

/// The surface syntax of a document, decided from its first meaningful bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    Json,
    Yaml,
    GraphQl,
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Decodes `input` to text: strips a UTF-8 byte-order mark and decodes UTF-16
/// with a byte-order mark, because YAML 1.2 allows both and editors on Windows
/// still produce UTF-16.
pub(crate) fn decode(input: &[u8]) -> Result<Cow<'_, str>, SpecError> {
    if input.starts_with(b"\x00\x00\xFE\xFF") || input.starts_with(b"\xFF\xFE\x00\x00") {
        return Err(SpecError::new(SpecErrorKind::NotText, "input is utf-32 encoded; re-encode it as utf-8"));
    }
    if let Some(rest) = input.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, u16::from_le_bytes).map(Cow::Owned);
    }
    if let Some(rest) = input.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, u16::from_be_bytes).map(Cow::Owned);
    }
    let body = input.strip_prefix(UTF8_BOM).unwrap_or(input);
    // Git's heuristic: a NUL byte near the start means binary data. Checking it
    // first gives "binary" rather than a confusing "invalid utf-8 at byte 0".
    if body.iter().take(8000).any(|b| *b == 0) {
        return Err(SpecError::new(
            SpecErrorKind::NotText,
            "input is binary data, not a text spec (expected json, yaml or graphql sdl)",
        ));
    }
    match std::str::from_utf8(body) {
        Ok(text) => Ok(Cow::Borrowed(text)),
        Err(err) => {
            let valid = body.get(..err.valid_up_to()).unwrap_or_default();
            // The prefix is valid UTF-8 by construction, so this cannot fail.
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let (line, column) = line_column_at(prefix, prefix.len());
            let byte = body.get(err.valid_up_to()).copied().unwrap_or_default();
            Err(SpecError::new(
                SpecErrorKind::NotText,
                format!(
                    "input is not valid utf-8 text (byte 0x{byte:02X} is not allowed here); re-encode the file as utf-8"
                ),
            )
            .at(Some(line), Some(column)))
        }
    }
}

fn decode_utf16(bytes: &[u8], word: fn([u8; 2]) -> u16) -> Result<String, SpecError> {
    let units = bytes.chunks(2).map(|pair| match pair {
        [a, b] => word([*a, *b]),
        // An odd trailing byte cannot be UTF-16; map it to an unpaired
        // surrogate so decoding reports it below.
        _ => 0xD800,
    });
    let text: Result<String, _> = char::decode_utf16(units).collect();
    let text = text.map_err(|_| {
        SpecError::new(
            SpecErrorKind::NotText,
            "input starts with a utf-16 byte-order mark but is not valid utf-16; re-encode it as utf-8",
        )
    })?;
    if text.contains('\0') {
        return Err(SpecError::new(
            SpecErrorKind::NotText,
            "input is binary data, not a text spec (expected json, yaml or graphql sdl)",
        ));
    }
    Ok(text)
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
pub(crate) fn line_column_at(text: &str, at: usize) -> (u64, u64) {
    let head = text.get(..at).unwrap_or(text);
    let line = head.bytes().filter(|b| *b == b'\n').count() as u64 + 1;
    let line_start = head.rfind('\n').map_or(0, |i| i + 1);
    let column = head.get(line_start..).map_or(0, |s| s.chars().count()) as u64 + 1;
    (line, column)
}

/// Skips whitespace and `#` comments (shared by YAML and GraphQL) and returns
/// the rest, or `None` when nothing meaningful is left.
fn meaningful(text: &str) -> Option<&str> {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(comment) = rest.strip_prefix('#') {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if rest.starts_with("---") && !rest.starts_with("----") {
            // A YAML document marker on its own says nothing about content.
            rest = rest.get(3..).unwrap_or_default();
        } else {
            break;
        }
    }
    (!rest.is_empty()).then_some(rest)
}

const GRAPHQL_KEYWORDS: &[&str] =
    &["type", "schema", "interface", "union", "enum", "input", "scalar", "directive", "extend"];

/// Decides the syntax of `text`, or `None` when it holds nothing but
/// whitespace and comments.
pub(crate) fn syntax(text: &str) -> Option<Syntax> {
    let rest = meaningful(text)?;
    if rest.starts_with('{') || rest.starts_with('[') {
        return Some(Syntax::Json);
    }
    if rest.starts_with("\"\"\"") {
        return Some(Syntax::GraphQl);
    }
    if looks_like_graphql_definition(rest) {
        return Some(Syntax::GraphQl);
    }
    if rest.starts_with('"') {
        // A GraphQL description string precedes a definition; a YAML quoted
        // key is followed by a colon instead.
        if let Some(after) = rest.get(1..).and_then(|s| s.split_once('"')).map(|(_, a)| a)
            && let Some(next) = meaningful(after)
            && looks_like_graphql_definition(next)
        {
            return Some(Syntax::GraphQl);
        }
    }
    Some(Syntax::Yaml)
}

fn looks_like_graphql_definition(rest: &str) -> bool {
    let word_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let word = rest.get(..word_end).unwrap_or_default();
    if !GRAPHQL_KEYWORDS.contains(&word) {
        return false;
    }
    let after = rest.get(word_end..).unwrap_or_default().trim_start();
    // `type: object` is YAML; `type Query {` and `schema {` are GraphQL.
    !after.starts_with(':')
        && (after.starts_with('{') || after.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '@'))
}

/// Which version key the document has, by a byte scan (no parse), for
/// [`crate::sniff`] on input that has not been validated as UTF-8.
pub(crate) fn version_key_bytes(body: &[u8], syntax: Syntax) -> Option<crate::SpecFormat> {
    use crate::SpecFormat;
    let contains = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    match syntax {
        Syntax::GraphQl => Some(SpecFormat::GraphQl),
        Syntax::Json => {
            if contains(b"\"openapi\"") {
                Some(SpecFormat::OpenApi3)
            } else if contains(b"\"swagger\"") {
                Some(SpecFormat::Swagger2)
            } else {
                None
            }
        }
        Syntax::Yaml => body.split(|b| *b == b'\n').find_map(|line| {
            let line = line.strip_prefix(b"\"").or_else(|| line.strip_prefix(b"'")).unwrap_or(line);
            if line.starts_with(b"openapi")
                && line.get(7..).is_some_and(|r| r.starts_with(b":") || r.starts_with(b"\":") || r.starts_with(b"':"))
            {
                Some(SpecFormat::OpenApi3)
            } else if line.starts_with(b"swagger")
                && line.get(7..).is_some_and(|r| r.starts_with(b":") || r.starts_with(b"\":") || r.starts_with(b"':"))
            {
                Some(SpecFormat::Swagger2)
            } else {
                None
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_is_guessed_from_first_meaningful_token() {
        assert_eq!(syntax("  {\"a\":1}"), Some(Syntax::Json));
        assert_eq!(syntax("# c\nopenapi: 3.0.0"), Some(Syntax::Yaml));
        assert_eq!(syntax("type: object"), Some(Syntax::Yaml));
        assert_eq!(syntax("# c\ntype Query { a: Int }"), Some(Syntax::GraphQl));
        assert_eq!(syntax("\"doc\"\ntype Query { a: Int }"), Some(Syntax::GraphQl));
        assert_eq!(syntax("\"openapi\": 3.0.0"), Some(Syntax::Yaml));
        assert_eq!(syntax("schema { query: Q }"), Some(Syntax::GraphQl));
        assert_eq!(syntax(" \n# only\n"), None);
    }

    #[test]
    fn utf16_with_bom_is_decoded() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "openapi: 3.0.0".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        assert_eq!(decode(&bytes).ok().as_deref(), Some("openapi: 3.0.0"));
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = decode(b"a: 1\nb: \xE9\n").err();
        let err = err.as_ref();
        assert_eq!(err.map(|e| e.kind), Some(SpecErrorKind::NotText));
        assert_eq!(err.and_then(|e| e.line), Some(2));
        assert_eq!(err.and_then(|e| e.column), Some(4));
    }
}
