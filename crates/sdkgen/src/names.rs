//! Identifier making: splitting arbitrary names into words, the case styles
//! of both languages, reserved words, and de-duplication.

use std::collections::HashSet;

/// Splits a name into ASCII alphanumeric words at separators and case
/// changes: `getHTTPResponse` -> get, HTTP, Response; `repos/get-content` ->
/// repos, get, content; `V1Namespace` -> V1, Namespace.
pub(crate) fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&prev) = current.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = (c.is_ascii_uppercase() && (prev.is_ascii_lowercase() || prev.is_ascii_digit()))
                || (c.is_ascii_uppercase()
                    && prev.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()));
            if boundary {
                out.push(std::mem::take(&mut current));
            }
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn digit_guard(name: String, fallback: &str) -> String {
    if name.is_empty() {
        fallback.to_owned()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name
    }
}

/// `PascalCase`, keeping the inner case of each word (`HTTPError`).
pub(crate) fn pascal(name: &str, fallback: &str) -> String {
    digit_guard(words(name).iter().map(|w| capitalise(w)).collect(), fallback)
}

/// `camelCase`: the first word lowercased, the others capitalised.
pub(crate) fn camel(name: &str, fallback: &str) -> String {
    let words = words(name);
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(&word.to_ascii_lowercase());
        } else {
            out.push_str(&capitalise(word));
        }
    }
    digit_guard(out, fallback)
}

/// `snake_case`.
pub(crate) fn snake(name: &str, fallback: &str) -> String {
    let joined = words(name).iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_");
    digit_guard(joined, fallback)
}

/// Words TypeScript does not accept as a variable or parameter name, in
/// strict mode modules, plus names that would shadow values the generated
/// code uses.
pub(crate) const TS_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "await",
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
    "options",
    "params",
    "body",
];

/// Type names TypeScript predefines, and the globals and runtime names the
/// generated file refers to as types; a schema with one of these names is
/// renamed.
pub(crate) const TS_RESERVED_TYPES: &[&str] = &[
    "Any",
    "Unknown",
    "Never",
    "Array",
    "ReadonlyArray",
    "Record",
    "Partial",
    "Required",
    "Promise",
    "Blob",
    "ArrayBuffer",
    "Uint8Array",
    "Headers",
    "Response",
    "Request",
    "RequestInit",
    "FormData",
    "URLSearchParams",
    "AbortSignal",
    "AbortController",
    "Error",
    "Date",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "Function",
    "Map",
    "Set",
    "JSON",
    "Math",
    "URL",
    "BodyInit",
    "Client",
    "ClientOptions",
    "RequestOptions",
    "ApiError",
    "Credential",
    "Scheme",
    "Param",
    "RequestSpec",
    "BodyKind",
];

/// Python keywords and the names the generated module imports or defines.
pub(crate) const PY_RESERVED: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "self",
    "cast",
    "body",
    "timeout",
    "str",
    "int",
    "float",
    "bool",
    "bytes",
    "list",
    "dict",
    "object",
    "type",
    "print",
    "json",
    "time",
    "random",
    "base64",
    "email",
    "urllib",
    "uuid",
    "Any",
    "Literal",
    "NotRequired",
    "TypeAlias",
    "TypedDict",
    "Client",
    "ApiError",
    "Exception",
    "BaseException",
    "ValueError",
    "TypeError",
    "KeyError",
    "OSError",
    "Ellipsis",
    "NotImplemented",
    "IndexError",
    "TimeoutError",
    "ConnectionError",
    "tuple",
    "set",
    "frozenset",
    "bytearray",
    "super",
    "datetime",
    "DEFAULT_BASE_URL",
];

/// Hands out unique names: the first claim of a base gets it as is, later
/// ones get `2`, `3`, ... appended. Membership only, so no iteration order
/// leaks into the output.
#[derive(Debug, Default)]
pub(crate) struct Namer {
    reserved: HashSet<String>,
    taken: HashSet<String>,
}

impl Namer {
    /// The namer for type names, the same in both languages so that the two
    /// SDKs of one API name their types alike.
    pub(crate) fn for_types() -> Self {
        let mut namer = Self::with_reserved(TS_RESERVED_TYPES);
        for name in PY_RESERVED {
            namer.reserved.insert((*name).to_owned());
        }
        namer
    }

    pub(crate) fn with_reserved(reserved: &[&str]) -> Self {
        Self { reserved: reserved.iter().map(|s| (*s).to_owned()).collect(), taken: HashSet::new() }
    }

    fn free(&self, name: &str) -> bool {
        !self.reserved.contains(name) && !self.taken.contains(name)
    }

    /// Claims `base`, or `base` with `2`, `3`, ... appended when it is taken
    /// or reserved.
    pub(crate) fn claim(&mut self, base: &str) -> String {
        let mut candidate = base.to_owned();
        let mut n = 2usize;
        while !self.free(&candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }

    /// Like [`Namer::claim`], but a reserved word gets `suffix` first (so
    /// `Error` becomes `ErrorModel` and `class` becomes `class_`).
    pub(crate) fn claim_or_suffix(&mut self, base: &str, suffix: &str) -> String {
        if self.reserved.contains(base) { self.claim(&format!("{base}{suffix}")) } else { self.claim(base) }
    }

    /// Marks `name` as taken.
    pub(crate) fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }
}

/// Whether `name` can be written bare as a TypeScript property key.
pub(crate) fn is_ts_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Whether `name` can be a field of a class-syntax Python TypedDict.
pub(crate) fn is_py_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !PY_KEYWORDS.contains(&name)
}

pub(crate) const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// A double-quoted string literal valid in both TypeScript and Python (JSON
/// escaping is a subset of both).
pub(crate) fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

/// A Python string literal, single-quoted when that needs no escaping (the
/// common case inside type expressions, which are themselves quoted).
pub(crate) fn py_quote(text: &str) -> String {
    if text.chars().all(|c| c != '\'' && c != '\\' && c != '"' && !c.is_control()) {
        format!("'{text}'")
    } else {
        quote(text)
    }
}

/// Text safe inside a `/** ... */` comment or a Python docstring: one
/// paragraph, no comment terminators, no triple quotes, bounded length.
pub(crate) fn doc_line(text: &str) -> Option<String> {
    let first = text.split("\n\n").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cleaned = first.replace('\\', "/").replace("*/", "* /").replace("\"\"\"", "'''");
    if cleaned.chars().count() > 300 {
        cleaned = cleaned.chars().take(297).collect::<String>() + "...";
    }
    if cleaned.ends_with('"') {
        cleaned.push(' ');
    }
    (!cleaned.is_empty()).then_some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_changes_and_separators() {
        assert_eq!(words("getHTTPResponse"), ["get", "HTTP", "Response"]);
        assert_eq!(words("repos/get-content"), ["repos", "get", "content"]);
        assert_eq!(words("listCoreV1Namespace"), ["list", "Core", "V1", "Namespace"]);
        assert_eq!(words("io.k8s.api.core.v1.Pod"), ["io", "k8s", "api", "core", "v1", "Pod"]);
        assert_eq!(words("  ¿qué?  "), ["qu"]);
    }

    #[test]
    fn case_styles() {
        assert_eq!(pascal("io.k8s.api.core.v1.Pod", "T"), "IoK8sApiCoreV1Pod");
        assert_eq!(pascal("HTTPError", "T"), "HTTPError");
        assert_eq!(camel("HTTPResponse_get", "op"), "httpResponseGet");
        assert_eq!(snake("listPets", "op"), "list_pets");
        assert_eq!(pascal("200-response", "T"), "_200Response");
        assert_eq!(snake("---", "op"), "op");
    }

    #[test]
    fn namer_deduplicates_deterministically() {
        let mut namer = Namer::with_reserved(&["Error", "class"]);
        assert_eq!(namer.claim_or_suffix("Error", "Model"), "ErrorModel");
        assert_eq!(namer.claim_or_suffix("class", "_"), "class_");
        assert_eq!(namer.claim_or_suffix("Pet", "Model"), "Pet");
        assert_eq!(namer.claim("Pet"), "Pet2");
        assert_eq!(namer.claim("Pet"), "Pet3");
        assert_eq!(namer.claim("class"), "class2");
    }

    #[test]
    fn identifiers_and_quotes() {
        assert!(is_ts_identifier("$ref_1"));
        assert!(!is_ts_identifier("x-rate"));
        assert!(!is_py_identifier("class"));
        assert!(is_py_identifier("class_"));
        assert_eq!(quote("a\"b\\"), r#""a\"b\\""#);
        assert_eq!(py_quote("available"), "'available'");
        assert_eq!(py_quote("it's"), "\"it's\"");
        assert_eq!(doc_line("ends */ here\n\nsecond").as_deref(), Some("ends * / here"));
        // An escaped star next to a slash must not close the comment either.
        assert!(!doc_line(r"ending in **\*@example.com**").unwrap().contains("*/"));
    }
}
